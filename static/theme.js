// Applies the theme before the page paints, so a dark page never flashes
// light: `?theme=light|dark|auto` (an embed's choice, for this load only),
// else the choice saved in this browser. Also marks an embedded page.
(function () {
  'use strict';
  var params = new URLSearchParams(window.location.search);
  var choice = params.get('theme');
  if (!choice) {
    try {
      choice = window.localStorage.getItem('fencing-lab.theme');
    } catch (error) {
      choice = null; // storage can be forbidden inside an iframe
    }
  }
  var root = document.documentElement;
  if (choice === 'light' || choice === 'dark') root.setAttribute('data-theme', choice);
  if (params.has('embed')) root.classList.add('embedded');
})();
