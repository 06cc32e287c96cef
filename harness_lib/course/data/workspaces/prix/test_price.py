import unittest

from price import format_price


class FormatPriceTest(unittest.TestCase):
    def test_positive(self):
        self.assertEqual(format_price(1234), "12,34 €")

    def test_zero(self):
        self.assertEqual(format_price(0), "0,00 €")

    def test_small(self):
        self.assertEqual(format_price(5), "0,05 €")

    def test_negative(self):
        self.assertEqual(format_price(-1234), "-12,34 €")

    def test_negative_small(self):
        self.assertEqual(format_price(-5), "-0,05 €")


if __name__ == "__main__":
    unittest.main()
