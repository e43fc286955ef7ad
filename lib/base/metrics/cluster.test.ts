import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { metricsText } from "./cluster";
import { recordRequest } from "./index";

const CLUSTER = path.join(__dirname, "testing", "cluster-process.ts");

describe("metrics of a cluster", () => {
  it("answers every joined worker's series, summed, to a scrape that reaches one worker", async () => {
    // Workers 1 and 2 record 1 and 2 requests, worker 3 (never joined) 100; worker 1 is scraped.
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", CLUSTER], {
      timeout: 60_000,
      env: { ...process.env, LOG_LEVEL: "silent" },
    });
    expect(stdout).toContain('http_requests_total{operation="/v2/cluster-test",method="GET",status="200"} 3');
    expect(stdout).toContain(
      'http_request_duration_seconds_count{operation="/v2/cluster-test",method="GET",status="200"} 3',
    );
    // The process's own metrics, of both workers.
    expect(stdout).toMatch(/^process_cpu_seconds_total \d/m);
  }, 90_000);

  it("answers the process's own registry outside a cluster", async () => {
    recordRequest("/v2/alone", "POST", 201, 0.002);
    const text = await metricsText();
    expect(text).toContain('http_requests_total{operation="/v2/alone",method="POST",status="201"} 1');
    expect(text).toContain("# TYPE http_request_duration_seconds histogram");
  });
});
