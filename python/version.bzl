"""cubridge's version, for the wheel and for the wheels that require it."""

VERSION = "0.2.0"
