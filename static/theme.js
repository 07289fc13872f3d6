// The theme, before the page paints, so a dark page never flashes light:
// `?theme=light|dark|auto` (an embed's choice, for this load only), else the
// choice saved in this browser. Also marks an embedded page, and handles the
// theme switch (#theme-choice) of the lab and the lesson alike.
(function () {
  'use strict';
  var KEY = 'fencing-lab.theme';
  var params = new URLSearchParams(window.location.search);
  var root = document.documentElement;

  function apply(choice) {
    if (choice === 'light' || choice === 'dark') root.setAttribute('data-theme', choice);
    else root.removeAttribute('data-theme');
  }

  var choice = params.get('theme');
  if (!choice) {
    try {
      choice = window.localStorage.getItem(KEY);
    } catch (error) {
      choice = null; // storage can be forbidden inside an iframe
    }
  }
  apply(choice);
  if (params.has('embed')) root.classList.add('embedded');

  document.addEventListener('change', function (event) {
    if (!event.target || event.target.id !== 'theme-choice') return;
    apply(event.target.value);
    try {
      window.localStorage.setItem(KEY, event.target.value);
    } catch (error) {
      // the choice lasts this page only
    }
  });
})();
