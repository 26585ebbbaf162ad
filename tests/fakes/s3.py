"""A real S3-compatible server for the team-index tests: moto's standalone server on 127.0.0.1.

The server checks signatures (INITIAL_NO_AUTH_ACTION_COUNT: only the calls that create the
test user and its keys go unsigned), so a wrong key is refused as a real store refuses it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

_SETUP_CALLS = 3  # create_user, put_user_policy, create_access_key


@dataclass
class S3Server:
    endpoint: str
    key_id: str
    secret: str

    def env(self, bucket: str = "team") -> dict[str, str]:
        """The environment a homeclaw process needs to use s3://<bucket>/index here."""
        return {
            "AWS_ACCESS_KEY_ID": self.key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret,
            "HOMECLAW_INDEX__URI": f"s3://{bucket}/index",
            "HOMECLAW_INDEX__ENDPOINT": self.endpoint,
            "HOMECLAW_INDEX__REGION": "us-east-1",
            "HOMECLAW_INDEX__ALLOW_HTTP": "true",
        }

    def create_bucket(self, name: str) -> None:
        self._client("s3").create_bucket(Bucket=name)

    def _client(self, service: str, *, signed: bool = True) -> object:
        import boto3

        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=self.key_id if signed else "setup",
            aws_secret_access_key=self.secret if signed else "setup",
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(endpoint: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("moto_server exited at start")
        try:
            urllib.request.urlopen(endpoint + "/moto-api/", timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("moto_server did not start within 30 s")


def _make_keys(endpoint: str) -> tuple[str, str]:
    import boto3

    iam = boto3.client(
        "iam",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="setup",
        aws_secret_access_key="setup",
    )
    iam.create_user(UserName="homeclaw")
    policy = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
    }
    iam.put_user_policy(UserName="homeclaw", PolicyName="all", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="homeclaw")["AccessKey"]
    return str(key["AccessKeyId"]), str(key["SecretAccessKey"])


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """moto_server on a free 127.0.0.1 port for the whole session, with one user's keys."""
    if os.environ.get("CI"):
        import moto  # noqa: F401  (CI installs the dev extra: a missing moto must fail there)
    pytest.importorskip("moto", reason="moto[server] comes with the dev extra (make install)")
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": str(_SETUP_CALLS)}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait(endpoint, process)
        key_id, secret = _make_keys(endpoint)
        yield S3Server(endpoint, key_id, secret)
    finally:
        process.terminate()
        process.wait(timeout=10)
