"""A software WebAuthn authenticator and client for the HA load (scripts/ha/load.py): it turns
Gatehouse's passkey options into the RegistrationResponseJSON and AuthenticationResponseJSON a
browser sends, as Sources/WebAuthnTestSupport/SoftwareAuthenticator.swift does. ES256 keys,
attestation "none", user present and verified; python3-cryptography for the key and signatures."""
import base64, hashlib, json, os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b'=').decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + '=' * (-len(text) % 4))


def cbor(value):
    """The CBOR encoding of what the authenticator sends: ints, bytes, text, dicts (in their order)."""
    def head(major, n):
        if n < 24: return bytes([major << 5 | n])
        for extra, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 1 << (8 * size): return bytes([major << 5 | extra]) + n.to_bytes(size, 'big')
        raise ValueError('integer too large for CBOR')
    if isinstance(value, bool) or value is None:
        raise TypeError('not encoded: ' + repr(value))
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, dict):
        return head(5, len(value)) + b''.join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError('not encoded: ' + repr(value))


class Credential:
    """One passkey: its key, id, relying party id, user handle and signature counter."""
    def __init__(self, rp_id, user_handle):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.id = os.urandom(16)
        self.rp_id, self.user_handle = rp_id, user_handle
        self.sign_count = 0

    def cose_key(self):
        n = self.key.public_key().public_numbers()
        return cbor({1: 2, 3: -7, -1: 1, -2: n.x.to_bytes(32, 'big'), -3: n.y.to_bytes(32, 'big')})

    def auth_data(self, flags, attested=b''):
        return hashlib.sha256(self.rp_id.encode()).digest() + bytes([flags]) + self.sign_count.to_bytes(4, 'big') + attested


def client_data(kind, options, origin):
    return json.dumps({'type': kind, 'challenge': options['challenge'], 'origin': origin,
                       'crossOrigin': False}, separators=(',', ':')).encode()


def register(options, origin):
    """A new credential for `options` (PublicKeyCredentialCreationOptionsJSON) and the
    RegistrationResponseJSON that registers it."""
    credential = Credential(options['rp']['id'], unb64url(options['user']['id']))
    attested = bytes(16) + len(credential.id).to_bytes(2, 'big') + credential.id + credential.cose_key()
    attestation = cbor({'fmt': 'none', 'attStmt': {}, 'authData': credential.auth_data(UP | UV | AT, attested)})
    rid = b64url(credential.id)
    return credential, {
        'id': rid, 'rawId': rid, 'type': 'public-key',
        'response': {'clientDataJSON': b64url(client_data('webauthn.create', options, origin)),
                     'attestationObject': b64url(attestation), 'transports': ['internal']},
        'clientExtensionResults': {}, 'authenticatorAttachment': 'platform'}


def assert_(credential, options, origin):
    """The AuthenticationResponseJSON for `options` (PublicKeyCredentialRequestOptionsJSON),
    signed with `credential`, whose counter goes up by one first (whatever becomes of it)."""
    credential.sign_count += 1
    data = client_data('webauthn.get', options, origin)
    auth_data = credential.auth_data(UP | UV)
    signature = credential.key.sign(auth_data + hashlib.sha256(data).digest(), ec.ECDSA(hashes.SHA256()))
    rid = b64url(credential.id)
    return {
        'id': rid, 'rawId': rid, 'type': 'public-key',
        'response': {'clientDataJSON': b64url(data), 'authenticatorData': b64url(auth_data),
                     'signature': b64url(signature), 'userHandle': b64url(credential.user_handle)},
        'clientExtensionResults': {}, 'authenticatorAttachment': 'platform'}
