// docs/errors.md#messages: an error carries a message id and its values, not English text. The
// JSON API renders the English catalog's entry; a page renders its own language's entry for the
// same id, so the English wording can change without a page losing its translation.
import { expect } from "chai";
import { CATALOGS } from "../src/i18n/index.js";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient } from "./support/pages.js";

const PASSWORD = "correct horse battery";
/** The English catalog as the running service reads it: these tests reword two entries. */
const en = CATALOGS.en as Record<string, string>;

/** The <input> (or <textarea>) named `name` in a page, as written. */
const inputNamed = (html: string, name: string) =>
  new RegExp(`<(?:input|textarea)[^>]*name="${name}"[^>]*>`).exec(html)?.[0] ?? "";

describeBackends("Error messages by id", (backend) => {
  let node: TestNode;
  const saved: Record<string, string> = {};
  const reword = (id: string, text: string) => {
    saved[id] ??= en[id]!;
    en[id] = text;
  };

  beforeEach(async () => {
    node = await backend.startNode();
  });
  afterEach(() => {
    for (const [id, text] of Object.entries(saved)) en[id] = text;
  });

  it("When a message's English wording changes, then a page still shows it in French, next to its field", async () => {
    reword("err.taken", "Someone already signed up with that username.");
    const first = new PageClient(node.url);
    expect((await first.signUp("alice", PASSWORD)).status).to.equal(303);
    const again = new PageClient(node.url);
    await again.get("/lang?lang=fr&return_to=/signup");
    const r = await again.signUp("alice", PASSWORD);
    expect(r.status).to.equal(409);
    expect(r.text).to.contain("Ce nom d’utilisateur est déjà pris.");
    expect(r.text).to.not.contain("Someone already signed up");
    expect(inputNamed(r.text, "username")).to.contain('aria-invalid="true"');
  });

  it("When a message's English wording changes, then the JSON API's error_description says the new words", async () => {
    reword("err.unknownChallenge", "That challenge is gone.");
    const r = await http(node.url, "/challenge/q", { headers: { key: "7d444840-9dc0-11d1-b245-5ffdce74fad2" } });
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal({ error: "not_found", error_description: "That challenge is gone." });
  });
});
