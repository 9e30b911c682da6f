"""Every HTTP answer of 400 or more that a test received, to show beside its failure.

The client speaks HTTP through requests sessions; wrapping Session.send records the method,
URL, status and the start of the body of each refused call, without changing what is sent.
"""

import requests

_refused = []
_send = requests.Session.send


def _recording_send(session, request, **kwargs):
    response = _send(session, request, **kwargs)
    if response.status_code >= 400:
        _refused.append(f"{request.method} {request.url} -> {response.status_code} "
                        f"{response.text[:300]}")
    return response


def install():
    requests.Session.send = _recording_send


def clear():
    _refused.clear()


def refused_calls():
    return list(_refused)
