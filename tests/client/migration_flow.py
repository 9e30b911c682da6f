"""Waiting on migrations the way a script does: read the migration again until it reaches a
state, with a deadline, and say where it stood when the deadline passed."""

import time

from mstrio.object_management.migration import ImportStatus, Migration, PackageStatus

DEADLINE_SECONDS = 120


def state(migration):
    package, imported = migration.package_info, migration.import_info
    validation = migration.validation
    return (f"package {getattr(package, 'status', None)}, "
            f"import {getattr(imported, 'status', None)} ({getattr(imported, 'message', None)}), "
            f"validation {getattr(validation, 'status', None)}")


def failed(migration):
    imported = migration.import_info
    return (migration.package_info.status == PackageStatus.CREATE_FAILED
            or getattr(imported, "status", None) in (ImportStatus.IMPORT_FAILED,
                                                     ImportStatus.UNDO_FAILED))


def wait_until(conn, migration_id, reached, what):
    deadline = time.monotonic() + DEADLINE_SECONDS
    while True:
        migration = Migration(conn, id=migration_id)
        if reached(migration):
            return migration
        if failed(migration):
            raise AssertionError(f"{what} not reached, the migration failed: {state(migration)}")
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{what} not reached after {DEADLINE_SECONDS} s: {state(migration)}")
        time.sleep(0.5)


def package_status(status):
    return lambda m: m.package_info.status == status


def import_status(status):
    return lambda m: m.import_info is not None and m.import_info.status == status


def validation_status(status):
    return lambda m: m.validation is not None and m.validation.status == status
