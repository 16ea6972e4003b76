"""docker-compose.yml's many-users setup (issue 38, item 2), read as compose reads it (no Docker
here): a PostgreSQL ``db`` in a named volume with a health check, an ``app`` that scales (no
host port) and whose replicas share one database URL, one signing key, one audit key, one
model-file volume and one sign-in secrets file, and a ``proxy`` (deploy/nginx.conf) that keeps
each browser on one replica and passes WebSocket upgrades on."""

import re

import pytest
import yaml
from sqlalchemy.engine import make_url

from tests.conftest import REPO

ENV = {"FORESTVIZ_DB_PASSWORD": "pw-1", "FORESTVIZ_SIGNING_KEY": "s" * 32,
       "FORESTVIZ_AUDIT_KEY": "a" * 32}


def interpolated(text: str, env: dict) -> str:
    """``${NAME}`` and ``${NAME:-default}`` replaced as compose does from ``env``."""
    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}",
                  lambda found: env.get(found[1]) or (found[2] or ""), text)


@pytest.fixture(scope="module")
def services() -> dict:
    compose = yaml.safe_load(interpolated((REPO / "docker-compose.yml").read_text(), ENV))
    assert {"db", "app", "proxy"} <= set(compose["services"])
    return compose


@pytest.fixture(scope="module")
def nginx() -> str:
    """deploy/nginx.conf without its comments, white space single."""
    text = (REPO / "deploy" / "nginx.conf").read_text()
    return " ".join(re.sub(r"#[^\n]*", "", text).split())


def test_the_database_keeps_its_files_in_a_named_volume_and_says_when_it_is_ready(services):
    db = services["services"]["db"]
    assert db["image"].split(":")[0] == "postgres"
    (mount,) = db["volumes"]
    volume, path = mount.split(":")
    assert path == "/var/lib/postgresql/data" and volume in services["volumes"]
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert db["environment"]["POSTGRES_PASSWORD"] == ENV["FORESTVIZ_DB_PASSWORD"]


def test_every_replica_gets_the_one_database_keys_volume_and_signin(services):
    app, db = services["services"]["app"], services["services"]["db"]
    url = make_url(app["environment"]["FORESTVIZ_DATABASE_URL"])
    assert (url.drivername, url.host, url.port) == ("postgresql+psycopg", "db", 5432)
    assert (url.username, url.password, url.database) == (
        db["environment"]["POSTGRES_USER"], ENV["FORESTVIZ_DB_PASSWORD"],
        db["environment"]["POSTGRES_DB"])
    for key in ("FORESTVIZ_SIGNING_KEY", "FORESTVIZ_AUDIT_KEY"):
        assert app["environment"][key] == ENV[key]
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert "library:/home/forestviz/library" in app["volumes"]  # the model files, shared
    assert [secret["source"] for secret in app["secrets"]] == ["signin"]  # one cookie secret


def test_the_image_installs_the_driver_the_database_url_names():
    """The image installs requirements.txt only: psycopg was a test requirement, so every
    replica failed to reach its PostgreSQL URL ("No module named 'psycopg'")."""
    pins = {line.split("==")[0].lower()
            for line in (REPO / "requirements.txt").read_text().splitlines() if "==" in line}
    assert {"psycopg", "psycopg-binary", "sqlalchemy"} <= pins


def test_the_app_scales_behind_the_proxy(services):
    app, proxy = services["services"]["app"], services["services"]["proxy"]
    assert "ports" not in app  # a fixed host port would let only one replica start
    assert "ports" not in services["services"]["db"]  # the database: on the compose network only
    assert app["expose"] == ["8501"] and app["deploy"]["replicas"] >= 2
    assert proxy["image"].split(":")[0] == "nginx" and len(proxy["ports"]) == 1
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in proxy["volumes"]
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"


def test_the_proxy_keeps_a_browser_on_one_replica_by_its_cookie(nginx):
    upstream = re.search(r"upstream forestviz \{(.*?)\}", nginx)[1]
    assert "hash $forestviz_route consistent;" in upstream
    assert "server app:8501 resolve;" in upstream and "zone forestviz" in upstream
    assert "map $cookie_forestviz_route $forestviz_route { \"\" $request_id; default " \
           "$cookie_forestviz_route; }" in nginx
    assert "add_header Set-Cookie $forestviz_new_route always;" in nginx
    assert "proxy_pass http://forestviz;" in nginx


def test_the_proxy_passes_websocket_upgrades_on(nginx):
    assert "map $http_upgrade $connection_upgrade { default upgrade; \"\" close; }" in nginx
    for line in ("proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
                 "proxy_set_header Connection $connection_upgrade;",
                 "proxy_set_header Host $http_host;"):
        assert line in nginx
    assert nginx.count("{") == nginx.count("}")
