"""The package's version: the Go module's (github.com/fabrictest/fabrictest)
release this package ships with; ``fabric-emulator version`` of a binary built
from that tag prints ``fabric-emulator v<VERSION>``."""

VERSION = "0.1.0"
