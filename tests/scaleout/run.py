#!/usr/bin/env python3
"""The scale-out suite: two `tessera serve` nodes on one PostgreSQL storage service behind a real
nginx, checked through the balancer as a client sees them (docs/deployment.md).

Usage (as `make test` runs it through ctest):
    scripts/with-test-postgres.sh env TESSERA_BINARY=$PWD/build/asan/tessera \\
        python3 tests/scaleout/run.py

Contract:
  - Needs TESSERA_BINARY (the tessera executable), TESSERA_TEST_PG (a postgresql:// URL to a
    server where it may CREATE DATABASE), psql, and nginx (Debian's package, on PATH or in
    /usr/sbin). When one is missing it prints why and exits 77, which ctest counts as skipped
    (SKIP_RETURN_CODE); nothing is started.
  - Starts the deployment of cluster.py in a temporary directory, runs each check in CHECKS
    order and prints one line per check (PASS, FAIL with what was wrong, SKIP with why), then a
    closing line "scaleout: N passed, N failed, N skipped" and the time taken. A check that
    fails does not stop the others; the node loss check runs last since it kills node B.
  - Exits 0 when no check failed, 1 when one did or the deployment did not start (with the end
    of each node's log and of nginx's error log). Whatever happens, including SIGTERM or
    SIGINT, nginx and the nodes are stopped, the databases dropped and the temporary directory
    removed (kept, and named, when TESSERA_SCALEOUT_KEEP is set).
"""

import os
import shutil
import signal
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import checks  # noqa: E402
import node_loss  # noqa: E402
from cluster import ScaleOutCluster  # noqa: E402
from postgres_databases import find_psql  # noqa: E402

SKIPPED = 77

CHECKS = [
    ("login_token_works_on_both_nodes", checks.check_login_token_works_on_both_nodes),
    ("projects_and_search_on_both_nodes", checks.check_projects_and_search_on_both_nodes),
    ("stored_search_is_fetched_on_either_node",
     checks.check_stored_search_is_fetched_on_either_node),
    ("cube_published_on_a_is_served_by_b", checks.check_cube_published_on_a_is_served_by_b),
    ("cube_instance_pages_through_balancer", checks.check_cube_instance_pages_through_balancer),
    ("dashboard_selections_through_balancer",
     checks.check_dashboard_selections_through_balancer),
    ("logout_on_a_is_refused_on_b_at_once", checks.check_logout_on_a_is_refused_on_b_at_once),
    ("upload_session_through_balancer", checks.check_upload_session_through_balancer),
    ("failed_logins_lock_out_their_client_only",
     checks.check_failed_logins_lock_out_their_client_only),
    ("migration_package_through_balancer", checks.check_migration_package_through_balancer),
    ("balancer_survives_losing_a_node", node_loss.check_balancer_survives_losing_a_node),
]


def find_nginx():
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


def missing_requirement(binary, postgres_url, psql, nginx):
    """Why the suite cannot run here, or None."""
    if not binary or not os.access(binary, os.X_OK):
        return f"TESSERA_BINARY does not name an executable ({binary!r})"
    if not postgres_url:
        return "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)"
    if not psql:
        return "psql is missing (scripts/install-test-deps.sh installs postgresql)"
    if not nginx:
        return "nginx is missing (scripts/install-test-deps.sh installs it)"
    return None


def stop_on_signal(signum, _frame):
    raise SystemExit(128 + signum)  # unwinds through the clean-up below


def run_check(name, check, deployment):
    """Runs one check; ("PASS" | "FAIL" | "SKIP", its line)."""
    started = time.monotonic()
    try:
        figures = check(deployment)
        outcome, detail = "PASS", figures or ""
    except checks.SkipCheck as reason:
        outcome, detail = "SKIP", str(reason)
    except checks.CheckFailed as failure:
        outcome, detail = "FAIL", str(failure)
    except Exception as error:  # a bug or an unexpected answer: a failure, said as such
        outcome, detail = "FAIL", f"{type(error).__name__}: {error}"
    seconds = time.monotonic() - started
    return outcome, f"{outcome} {name} ({seconds:.1f} s): {detail}"


def run_checks(cluster):
    deployment = checks.Deployment(cluster)
    deployment.demo = checks.find_demo_ids(cluster.node_a)
    outcomes = []
    for name, check in CHECKS:
        outcome, line = run_check(name, check, deployment)
        print(line, flush=True)
        outcomes.append(outcome)
    return outcomes


def describe_setup(cluster):
    print(f"scaleout: nginx on {cluster.balancer.url} -> node A {cluster.node_a.url}, "
          f"node B {cluster.node_b.url}; storage and warehouse on PostgreSQL; cubes.dir shared",
          flush=True)


def main():
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    binary = os.environ.get("TESSERA_BINARY", "")
    postgres_url = os.environ.get("TESSERA_TEST_PG", "")
    psql, nginx = find_psql(), find_nginx()
    reason = missing_requirement(binary, postgres_url, psql, nginx)
    if reason:
        print(f"scaleout: SKIPPED: {reason}")
        return SKIPPED

    started = time.monotonic()
    work_dir = tempfile.mkdtemp(prefix="tessera-scaleout-")
    cluster = ScaleOutCluster(os.path.abspath(binary), nginx, postgres_url, psql, work_dir)
    outcomes = []
    try:
        cluster.start()
        describe_setup(cluster)
        outcomes = run_checks(cluster)
    except Exception as error:
        print(f"scaleout: the deployment did not start or broke: {type(error).__name__}: {error}")
        outcomes.append("FAIL")
    finally:
        if "FAIL" in outcomes:
            print(cluster.logs_for_report())
        cluster.stop()
        keep_or_remove(work_dir)
    print(f"scaleout: {outcomes.count('PASS')} passed, {outcomes.count('FAIL')} failed, "
          f"{outcomes.count('SKIP')} skipped")
    print(f"scaleout: took {time.monotonic() - started:.1f} s")
    return 1 if "FAIL" in outcomes else 0


def keep_or_remove(work_dir):
    if os.environ.get("TESSERA_SCALEOUT_KEEP"):
        print(f"scaleout: kept {work_dir}")
    else:
        shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
