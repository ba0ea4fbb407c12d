"""What walls.py and shapes.py share: a query's rows from a results database, and the command line
that prints one database's table."""
import sqlite3
import sys


def fetch(db, query):
    with sqlite3.connect(db) as conn:
        return conn.execute(query).fetchall()


def main(rows, usage):
    """python3 <script> results.db: the lines rows(db) makes, printed; usage on other arguments."""
    if len(sys.argv) != 2:
        sys.exit(usage)
    print("\n".join(rows(sys.argv[1])))
