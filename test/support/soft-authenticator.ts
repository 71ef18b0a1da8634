// A passkey authenticator in the test process (no browser): it makes ES256 credentials and
// answers WebAuthn creation and request options with the JSON @simplewebauthn/browser would send
// (attestation "none", user present and verified), so HTTP tests can register passkeys and sign
// in with them many times at once. The bytes follow WebAuthn Level 2: authenticator data
// (§6.1: RP id hash, flags, signature counter, attested credential data) and the signature over
// authenticatorData ‖ SHA-256(clientDataJSON) (§6.3.3); CBOR by @simplewebauthn/server's encoder.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

const b64url = (b: Uint8Array | Buffer) => Buffer.from(b).toString("base64url");
const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest();

interface Credential {
  id: string;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

/** What may be wrong with an answer, for the tests of refusals. */
export interface AssertOptions {
  /** Answer with this credential (default: the first this authenticator made). */
  credentialId?: string;
  /** The challenge to sign (default: the options'). */
  challenge?: string;
  /** Flip a bit of the signature. */
  badSignature?: boolean;
  /** Say the user was not verified (UV flag off). */
  withoutUserVerification?: boolean;
  /** Send this signature counter instead of the credential's own. */
  counter?: number;
  /** Send this user handle instead of the credential's own (base64url). */
  userHandle?: string;
}

export class SoftAuthenticator {
  private readonly credentials: Credential[] = [];

  /**
   * origin: the relying party's origin (AUTH_URL's); counting: whether the signature counter grows
   * on each use (false: it stays 0, as most passkeys send); backupEligible: a synced passkey.
   */
  constructor(
    readonly origin: string,
    private readonly opts: { counting?: boolean; backupEligible?: boolean } = {},
  ) {}

  private get rpId(): string {
    return new URL(this.origin).hostname;
  }

  private flags(extra: number): number {
    return UP | UV | extra | (this.opts.backupEligible ? BE | BS : 0);
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** The credential ids made so far. */
  get ids(): string[] {
    return this.credentials.map((c) => c.id);
  }

  /** Answers creation options (as POST /account/passkeys/options gives them) with a new credential. */
  register(options: { challenge: string; user: { id: string } }): Record<string, unknown> {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const credId = randomBytes(16);
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const len = Buffer.alloc(2);
    len.writeUInt16BE(credId.length);
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([this.flags(AT)]),
      Buffer.alloc(4), // counter 0
      Buffer.alloc(16), // AAGUID: none
      len,
      credId,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", authData],
      ]),
    );
    const id = b64url(credId);
    this.credentials.push({ id, privateKey, userHandle: options.user.id, counter: 0 });
    return {
      id,
      rawId: id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** Answers request options (as POST /signin/passkey/options gives them), or a spoilt answer. */
  assert(options: { challenge: string }, spoil: AssertOptions = {}): Record<string, unknown> {
    const cred = spoil.credentialId ? this.credentials.find((c) => c.id === spoil.credentialId) : this.credentials[0];
    if (!cred) throw new Error("SoftAuthenticator: no such credential");
    if (this.opts.counting && spoil.counter === undefined) cred.counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(spoil.counter ?? cred.counter);
    const flags = this.flags(0) & ~(spoil.withoutUserVerification ? UV : 0);
    const authenticatorData = Buffer.concat([sha256(this.rpId), Buffer.from([flags]), counter]);
    const clientDataJSON = this.clientData("webauthn.get", spoil.challenge ?? options.challenge);
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), cred.privateKey);
    if (spoil.badSignature) signature[8]! ^= 0x01; // inside r: still DER, no longer the signature
    return {
      id: cred.id,
      rawId: cred.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: spoil.userHandle ?? cred.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
