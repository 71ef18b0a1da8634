// What a benchmark module is: a name and a run() that starts what it needs (its processes on the
// shared private Redis), measures, stops everything and returns rows for the common table.
import type { TestRedis } from "../../support/redis.js";
import type { BenchSettings } from "./load.js";
import type { Row } from "./report.js";

export interface BenchContext {
  settings: BenchSettings;
  redis: TestRedis;
  log(line: string): void;
}

export interface BenchModule {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<Row[]>;
}
