// docs/errors.md#messages: an error carries a message id and its values, not English text. The
// JSON API renders the English catalog's entry; a page renders its own language's entry for the
// same id, so the English wording can change without a page losing its translation.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";
import { PageClient } from "./support/pages.js";
import { startProcessNode, type ServerProcess } from "./support/processes.js";

const PASSWORD = "correct horse battery";
/** English entries worded otherwise than in src/i18n/messages/en/. */
const REWORDED = {
  "err.taken": "Someone already signed up with that username.",
  "err.unknownChallenge": "That challenge is gone.",
};

/** The <input> named `name` in a page, as written. */
const inputNamed = (html: string, name: string) => new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0] ?? "";

describeBackends("Error messages by id: the English catalog reworded", (backend) => {
  let node: ServerProcess;
  before(async function () {
    this.timeout(30_000);
    node = await startProcessNode(
      { REWORD_EN: JSON.stringify(REWORDED), ...(backend.redis ? { REDIS_URL: backend.redis.url } : {}) },
      20_000,
      "test/fixtures/reworded-english.ts",
    );
  });
  after(() => node.stop());

  it("When a message's English wording changes, then a page still shows it in French, next to its field", async () => {
    const first = new PageClient(node.url);
    const name = `alice_${backend.name}`;
    expect((await first.signUp(name, PASSWORD)).status).to.equal(303);
    const again = new PageClient(node.url);
    await again.get("/lang?lang=fr&return_to=/signup");
    const r = await again.signUp(name, PASSWORD);
    expect(r.status).to.equal(409);
    expect(r.text).to.contain("Ce nom d’utilisateur est déjà pris.");
    expect(r.text).to.not.contain("Someone already signed up");
    expect(inputNamed(r.text, "username")).to.contain('aria-invalid="true"');
  });

  it("When a message's English wording changes, then the JSON API's error_description says the new words", async () => {
    const r = await http(node.url, "/challenge/q", { headers: { key: "7d444840-9dc0-11d1-b245-5ffdce74fad2" } });
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal({ error: "not_found", error_description: "That challenge is gone." });
  });
});
