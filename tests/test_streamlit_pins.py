"""Streamlit internals the app pins (issue 40, item 5), where no public API exists:
``ui/session_end.py`` (ending a closed tab's session on time), ``ui/upload_caps.py`` (the
session of an upload) and ``ui/launch.py`` (Streamlit's own command line), and the one the tests
pin (``tests/conftest.py``: AppTest's scan for components, done once per test process). Each is
checked to be there with the signature it is called with; and the version they were checked at
is pinned here, so that an upgrade fails this test until someone re-reads them."""

import inspect

import streamlit
from streamlit.components.v2 import manifest_scanner
from streamlit.components.v2.component_manager import BidiComponentManager
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.runtime import Runtime, get_instance
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.session_manager import SessionClient
from streamlit.web import cli

CHECKED_AT = "1.67.0"


def test_the_internals_were_checked_at_this_streamlit():
    assert streamlit.__version__ == CHECKED_AT, (
        f"Streamlit {streamlit.__version__}: re-check the internals that ui/session_end.py, "
        "ui/upload_caps.py, ui/launch.py and tests/conftest.py use (their docstrings name "
        "them), then update CHECKED_AT")


def parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_the_runtime_calls_the_app_makes_are_there():
    assert callable(get_instance)
    assert parameters(Runtime.connect_session)[:3] == ["self", "client", "user_info"]
    assert parameters(Runtime.handle_backmsg)[:3] == ["self", "session_id", "msg"]
    assert parameters(Runtime.disconnect_session)[:2] == ["self", "session_id"]
    assert parameters(Runtime.close_session) == ["self", "session_id"]
    assert {"write_forward_msg", "client_context"} <= set(dir(SessionClient))
    request = BackMsg()
    request.file_urls_request.request_id = "pin"
    assert request.WhichOneof("type") == "file_urls_request"
    assert parameters(get_script_run_ctx) == ["suppress_warning"]
    assert callable(cli.main)


def test_apptest_finds_the_component_scan_by_its_module_at_each_call():
    """tests/conftest.py replaces the module's function with its memo: the component manager
    must look it up there when it scans (not keep a reference from its own import)."""
    assert parameters(manifest_scanner.scan_component_manifests.__wrapped__) == ["max_workers"]
    source = inspect.getsource(BidiComponentManager.discover_and_register_components)
    assert "from streamlit.components.v2.manifest_scanner import" in source
    assert "scan_component_manifests()" in source
