// The house rules on who may import whom (README, "Code layout"; docs/architecture.md: data flows one way), checked by
// `npm run deps` (part of `npm test`). An "error" fails the run; a "warn" is reported only.
//
// tsPreCompilationDeps: true — `import type` counts. A cycle made only of type imports vanishes
// from the emitted JavaScript, but it still ties the modules together: neither can be read,
// moved or tested without the other, and the next value import along the same edge turns it
// into a real load-order cycle. The layering rules want the same: domain/ must not even name
// express's types. Nothing sound in the code needed the looser setting.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles, type-only ones included (see tsPreCompilationDeps above).",
      from: { path: "^(src|client/src)/" },
      to: { circular: true },
    },
    {
      name: "domain-not-adapters",
      severity: "error",
      comment: "domain/ is plain logic over the store port: it never imports http/, realtime/, express or socket.io.",
      from: { path: "^src/domain/" },
      to: {
        path: ["^src/(http|realtime)/", "^node_modules/(@types/)?express/", "^node_modules/socket\\.io/"],
      },
    },
    {
      name: "views-are-pure",
      severity: "error",
      comment: "views/ render HTML from data: they never import http/, realtime/, express or socket.io.",
      from: { path: "^src/views/" },
      to: {
        path: ["^src/(http|realtime)/", "^node_modules/(@types/)?express/", "^node_modules/socket\\.io/"],
      },
    },
    {
      name: "realtime-not-http",
      severity: "error",
      comment: "realtime/ and http/ are two thin adapters over domain/: realtime/ never imports http/.",
      from: { path: "^src/realtime/" },
      to: { path: "^src/http/" },
    },
    {
      name: "adapters-reach-data-through-domain",
      severity: "error",
      comment:
        "Data flows one way: http/ and realtime/ call domain/, never the store. From store/ they may name record types and pure helpers (store/port.ts), never a backend, openStore or the limiter; test/layers.test.ts checks that they never hold the store itself.",
      from: { path: "^src/(http|realtime)/" },
      to: { path: "^src/store/", pathNot: "^src/store/port\\.ts$" },
    },
    {
      name: "store-is-the-bottom",
      severity: "error",
      comment: "store/ is the lowest layer: it never imports http/, realtime/ or domain/.",
      from: { path: "^src/store/" },
      to: { path: "^src/(http|realtime|domain)/" },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import the cruiser cannot resolve would hide its edges from every rule above.",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // Packages that publish only an "exports" map (uuid) resolve through it, as Node does.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
