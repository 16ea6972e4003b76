"""forestviz: the Streamlit entry point (``python -m ui.launch run app.py``: ``ui/launch.py``;
a plain ``streamlit run app.py`` works the same: the server's import of this file starts it).

The navigation lists only the pages the session's role may use (``ui.access``); a page left out
is never run by Streamlit, whatever URL is opened. Without a role (sign-in configured, nobody
signed in or a token naming no role) the only page is the sign-in gate (``ui.signin``).

The same file is the server's ASGI app: ``streamlit run`` serves the ``st.App`` it finds in the
script it is given, importing it (``__name__`` is then ``app``) where a session runs it as
``__main__``. The import refuses local mode on a network address and puts the doors of
``ui.doors`` (the Host allow-list) and ``ui.upload_caps`` (every uploader's cap, on the
server) in front of every route (issue 36), and ``ui.stale_ticks`` on the websocket; it imports
no page module (their caches would warn that no runtime exists yet)."""

import streamlit as st
from starlette.middleware import Middleware

from ui import doors, launch, memory, page_focus, stale_ticks, upload_caps
from ui.secure_cookies import SecureCookies

if __name__ != "__main__":  # the server's import, before it answers any request
    doors.refuse_unsafe_address()
    launch.start_preload()  # the default model, loading while the server starts (ui/launch.py)
    memory.at_server_start()  # big freed buffers go back to the system (ui/memory.py)
    app = st.App(__file__, middleware=[
        Middleware(doors.HostAllowList, hosts=doors.server_hosts()),
        Middleware(upload_caps.UploadCaps),
        Middleware(SecureCookies),  # every cookie set over HTTPS is Secure
        Middleware(stale_ticks.StaleTicks),  # no timer's tick from a page the session has left
    ])
else:  # a session's run
    from forestviz.store import waits
    from ui import signin
    from ui.access import PAGES, may_use
    from ui.server import default_training
    from ui.session_end import watch_this_session
    from ui.state import ensure_dataset

    waits.page_run()  # every lock wait of this run on the library: 2 s in all (issue 36)
    st.set_page_config(page_title="forestviz", layout="wide")

    identity = signin.admitted()
    if identity is None:
        page = st.navigation([st.Page(signin.gate, title="Sign in", icon=":material/login:")])
    else:
        page = st.navigation([
            st.Page(p.path, title=p.title, icon=p.icon, default=name == "home")
            for name, p in PAGES.items() if may_use(identity.role, name)
        ])
        signin.show_identity(identity)
        page_focus.focus_heading_after_switch()
        ensure_dataset()
        watch_this_session()  # a closed tab's session (its uploads) is dropped after its TTL
    upload_caps.showing(page.url_path)  # only this page's uploaders may receive files
    try:
        page.run()
    finally:  # however the run ends (a rerun, a stop): its garbage, collected (ui/memory.py)
        memory.after_page_run()
    # in the background: what a trained model and the Explain page import, and the default
    # model, loaded (or trained) once for every Home button; ui.launch started it with the server
    # (this finds it), a plain `streamlit run` starts it here, after the first page
    default_training()
