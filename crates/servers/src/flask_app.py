"""Flask-Limiter's fixed windows under gunicorn, for staggered's servers crate.

Two routes, each with its own limit, counted per client address in memory:
run it with ONE gunicorn worker, so that every request meets the same counts.
The limits come from the environment, set by the Rust side.
"""

import os

from flask import Flask
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

app = Flask(__name__)
limiter = Limiter(
    get_remote_address,
    app=app,
    headers_enabled=True,
    storage_uri="memory://",
    strategy="fixed-window",
)


@app.route("/per-second")
@limiter.limit(os.environ["SERVERS_PER_SECOND"])
def per_second():
    return "ok"


@app.route("/per-minute")
@limiter.limit(os.environ["SERVERS_PER_MINUTE"])
def per_minute():
    return "ok"
