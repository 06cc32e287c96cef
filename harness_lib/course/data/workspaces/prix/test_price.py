"""Tests de price.py : `python test_price.py` (pytest les trouve aussi, s’il est installé)."""

from price import format_price


def check(cents: int, expected: str) -> None:
    got = format_price(cents)
    assert got == expected, f"format_price({cents}) donne {got!r} au lieu de {expected!r}"


def test_positive():
    check(1234, "12,34 €")


def test_zero():
    check(0, "0,00 €")


def test_small():
    check(5, "0,05 €")


def test_negative():
    check(-1234, "-12,34 €")


def test_negative_small():
    check(-5, "-0,05 €")


if __name__ == "__main__":  # sans pytest : chaque test_… de ce fichier, puis le bilan
    tests = [test for name, test in list(globals().items()) if name.startswith("test_")]
    failed = 0
    for test in tests:
        try:
            test()
        except AssertionError as err:
            failed += 1
            print(f"ÉCHEC {test.__name__} : {err}")
    if failed:
        print(f"{failed} test{'s' if failed > 1 else ''} en échec sur {len(tests)}")
    else:
        print(f"{len(tests)} tests réussis")
    raise SystemExit(1 if failed else 0)
