// Starts Fencing Lab. A file of its own (rather than the inline loader Trunk
// would write) so the page runs under a Content-Security-Policy that allows
// scripts from its own origin only: script-src 'self' 'wasm-unsafe-eval'.
import init from './fencing-lab-web.js';

init({ module_or_path: new URL('./fencing-lab-web_bg.wasm', import.meta.url) }).catch((error) => {
  const box = document.createElement('p');
  box.className = 'notice';
  box.setAttribute('role', 'alert');
  box.textContent = `Fencing Lab could not start: ${error}. It needs a browser with WebAssembly.`;
  document.body.append(box);
});
