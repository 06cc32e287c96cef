"""Formatage des prix affichés dans la boutique."""


def format_price(cents: int) -> str:
    """Affiche un montant en centimes sous la forme « 12,34 € ».

    >>> format_price(1234)
    '12,34 €'
    """
    euros, rest = divmod(cents, 100)
    return f"{euros},{rest:02d} €"
