"""What walls.py and shapes.py share: a query's rows from a results database, and the command line
that prints one database's table."""
import pathlib
import sqlite3
import sys


def fetch(db, query):
    """The query's rows. The database is opened read-only, so a path that names no database is an
    error rather than a new, empty one."""
    uri = pathlib.Path(db).resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.OperationalError as exc:
        raise SystemExit(f"{db}: cannot open the results database read-only ({exc})") from exc
    with conn:
        return conn.execute(query).fetchall()


def main(rows, usage):
    """python3 <script> results.db: the lines rows(db) makes, printed; usage on other arguments."""
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit(usage)
    print("\n".join(rows(sys.argv[1])))
