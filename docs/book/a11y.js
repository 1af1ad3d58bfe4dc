// What axe-core finds in the mdBook theme, closed after the theme's own script has run:
// - its sidebar toggle is a <label> carrying aria-controls and aria-expanded, which a label may
//   not: it gets the button role those belong to, a place in the tab order and a button's keys;
// - a code block or table wider than the page scrolls sideways, so a keyboard must be able to
//   reach it: each one that scrolls is focusable (and named, for a screen reader).
(function () {
  const toggle = document.getElementById('sidebar-toggle');
  if (toggle && toggle.tagName === 'LABEL') {
    toggle.setAttribute('role', 'button');
    toggle.setAttribute('tabindex', '0');
    toggle.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle.click(); }
    });
  }
  function scrollers() {
    for (const el of document.querySelectorAll('#content pre, #content pre > code, #content .table-wrapper')) {
      if (el.scrollWidth > el.clientWidth + 1) {
        el.setAttribute('tabindex', '0');
        if (!el.hasAttribute('aria-label')) el.setAttribute('aria-label', el.classList.contains('table-wrapper') ? 'table, scrolls sideways' : 'code, scrolls sideways');
      } else if (el.getAttribute('tabindex') === '0') {
        el.removeAttribute('tabindex');
        el.removeAttribute('aria-label');
      }
    }
  }
  scrollers();
  window.addEventListener('resize', scrollers);
})();
