// Fencing Lab's resize helper for course pages. Include it once on a page
// that embeds Fencing Lab widgets in iframes:
//   <script src="https://your.host/fencing-lab/fencing-lab-embed.js" async></script>
// Each widget reports its content height with postMessage; this script sets
// the height of the iframe that sent it, so nothing scrolls twice. Without
// the script the iframes keep the height written in their HTML.
(function () {
  'use strict';
  var MESSAGE = 'fencing-lab:height';
  var HEIGHT_MAX_PX = 20000;
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.type !== MESSAGE || typeof data.height !== 'number') return;
    var frames = document.getElementsByTagName('iframe');
    for (var i = 0; i < frames.length; i += 1) {
      if (frames[i].contentWindow === event.source) {
        var height = Math.max(100, Math.min(HEIGHT_MAX_PX, Math.ceil(data.height)));
        frames[i].style.height = height + 'px';
        frames[i].setAttribute('data-fencing-lab-height', String(height));
        return;
      }
    }
  });
})();
