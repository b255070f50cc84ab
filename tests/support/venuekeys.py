"""The venue's Ed25519 key pair of the tests (issue 35): the venue signs its commands with the
private key, the tables hold only the public one (firmware/bus/signing.py). Fixed, so that a
signature written into a test (a JavaScript client's) stays the same; OTHER is a key that is
not the venue's (a forger's, a table owner's)."""

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

VENUE_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
VENUE_PUBLIC = VENUE_KEY.public_key()
OTHER_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(100, 132)))


def private_pem(key: Ed25519PrivateKey = VENUE_KEY) -> bytes:
    """The key as `openssl genpkey -algorithm ed25519` writes it: the venue's venue.key."""
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(key: Ed25519PrivateKey = VENUE_KEY) -> bytes:
    """Its public key as `openssl pkey -pubout` writes it: a table's venue.pub."""
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
