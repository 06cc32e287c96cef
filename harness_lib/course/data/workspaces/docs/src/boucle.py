"""La boucle du mini harness."""


def boucle():
    """Voir docs/README.md."""
