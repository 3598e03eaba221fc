"""The runner of the module's test files (test_*.py here, each run as a script through the vsvk
command by tests/tests/cli.rs): every test_ function of the file, or those named on the command
line, then one 'N passed, N failed' line; exit status 1 when any failed."""
import sys
import traceback


def main(namespace, last=()):
    """Runs the test_ functions of `namespace` (a module's globals()) in name order, `last` after the rest."""
    tests = sorted((k, v) for k, v in namespace.items() if k.startswith('test_') and callable(v))
    tests.sort(key=lambda t: t[0] in last)
    only = sys.argv[1:]
    passed = failed = 0
    for name, fn in tests:
        if only and name not in only:
            continue
        try:
            fn()
        except Exception:
            failed += 1
            print(f'FAIL {name}', file=sys.stderr)
            traceback.print_exc()
        else:
            passed += 1
            print(f'ok   {name}')
    print(f'{passed} passed, {failed} failed')
    sys.exit(1 if failed else 0)
