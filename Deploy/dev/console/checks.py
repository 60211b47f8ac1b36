"""What a step of browser_test.py raises when the console is not as expected: reported with the page, then exit 1."""


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)
