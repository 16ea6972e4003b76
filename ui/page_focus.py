"""Focus after a page switch (issue 39): Streamlit leaves it on the page's body, so a keyboard or
screen-reader user starts again from the top. One fixed script (a constant: nothing from a file
or a user is in it), run by ``st.html`` in the browser, moves it to the new page's heading.

Streamlit keeps the script's element mounted across runs and page switches (its body never
changes), so the script runs once per tab and watches: when the URL's path has changed, the
page's run has ended (a heading focused while it runs may be drawn anew, and the focus lost to
the body) and the main area shows a heading other than the last page's (the new page's), it
gives that ``h1`` ``tabindex="-1"`` (focusable from a script, no Tab stop) and focuses it. Until
the user moves the focus elsewhere, a heading drawn anew (a fragment's run, a late part of the
page) that drops the focus to the body gets it back, without scrolling. A rerun inside a page (a
widget changed) keeps its path: focus stays on the widget."""

import streamlit as st

SCRIPT = """<script>
(() => {
  if (window.forestvizPageFocus) return;
  window.forestvizPageFocus = true;
  const heading = () => document.querySelector('[data-testid="stMain"] h1');
  const running = () => document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
  const text = h => (h ? h.textContent : null);
  let path = location.pathname, title = text(heading()), holding = false;
  const hold = (h, options) => { h.setAttribute('tabindex', '-1'); h.focus(options); };
  setInterval(() => {
    const h = heading();
    if (location.pathname === path) {
      if (h) title = text(h);
      const lost = document.activeElement === document.body;
      if (holding && h && lost) hold(h, {preventScroll: true});
      else if (holding && !lost && document.activeElement !== h) holding = false;
      return;
    }
    if (!h || text(h) === title || h.closest('[data-stale="true"]') || running()) return;
    path = location.pathname;
    title = text(h);
    hold(h);
    holding = true;
  }, 150);
})();
</script>"""


def focus_heading_after_switch() -> None:
    """The script, in the sidebar (it draws nothing); once per page run."""
    st.sidebar.html(SCRIPT, unsafe_allow_javascript=True)
