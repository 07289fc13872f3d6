// Fencing Lab's resize helper for course pages. Include it once on a page
// that embeds Fencing Lab widgets in iframes:
//   <script src="https://your.host/fencing-lab/fencing-lab-embed.js" async></script>
// Each widget reports its content height with postMessage; this script sets
// the height of the iframe that sent it, so nothing scrolls twice. Without
// the script the iframes keep the height written in their HTML.
// A frame written with data-fencing-lab-src instead of src loads only when it
// comes within NEAR_PX of the window: a course page with several widgets
// downloads the simulator only for those its reader nears.
(function () {
  'use strict';
  var MESSAGE = 'fencing-lab:height';
  var HEIGHT_MAX_PX = 20000;
  var NEAR_PX = 600;
  var LAZY = 'data-fencing-lab-src';

  function start(frame) {
    var src = frame.getAttribute(LAZY);
    frame.removeAttribute(LAZY);
    if (src) frame.src = src;
  }
  function lazy() {
    var waiting = document.querySelectorAll('iframe[' + LAZY + ']');
    if (!('IntersectionObserver' in window)) {
      for (var j = 0; j < waiting.length; j += 1) start(waiting[j]);
      return;
    }
    var near = new IntersectionObserver(function (entries) {
      for (var k = 0; k < entries.length; k += 1) {
        if (entries[k].isIntersecting) {
          near.unobserve(entries[k].target);
          start(entries[k].target);
        }
      }
    }, { rootMargin: NEAR_PX + 'px 0px' });
    for (var i = 0; i < waiting.length; i += 1) near.observe(waiting[i]);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', lazy);
  else lazy();

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
