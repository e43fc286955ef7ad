import { describe, expect, it } from "vitest";
import { formatElapsed, maskUri, servingSummary } from "./summary";

describe("what npm start prints", () => {
  it("masks the password of a MongoDB URI, wherever it is", () => {
    expect(maskUri("mongodb://app:s3cr%40t@db1:27017,db2:27017/prod?replicaSet=rs")).toBe(
      "mongodb://app:****@db1:27017,db2:27017/prod?replicaSet=rs",
    );
    expect(maskUri("mongodb+srv://app:pw@cluster.example.net/prod")).toBe(
      "mongodb+srv://app:****@cluster.example.net/prod",
    );
    expect(maskUri("mongodb://db:27017/prod?tls=true&tlsCertificateKeyFilePassword=hunter2&w=1")).toBe(
      "mongodb://db:27017/prod?tls=true&tlsCertificateKeyFilePassword=****&w=1",
    );
    expect(maskUri("mongodb://db:27017/prod")).toBe("mongodb://db:27017/prod");
    expect(maskUri("mongodb://user@db:27017/prod")).toBe("mongodb://user@db:27017/prod");
  });

  it("shows elapsed time in seconds, then minutes", () => {
    expect([0, 999, 45_300, 60_000, 125_000, 3_600_000].map(formatElapsed)).toEqual([
      "0s",
      "0s",
      "45s",
      "1m 00s",
      "2m 05s",
      "60m 00s",
    ]);
  });

  it("names the URL, the database, the admin and, only when generated, the password", () => {
    const first = servingSummary({
      url: "http://localhost:3000",
      publicUrl: "http://localhost:3000",
      embeddedDir: "/srv/app/.data/db",
      adminEmail: "admin@example.com",
      generatedPassword: "Gen3rated",
    }).join("\n");
    expect(first).toContain("Serving     http://localhost:3000");
    expect(first).not.toContain("Listening");
    expect(first).toContain("Database    embedded, in /srv/app/.data/db");
    expect(first).toContain("Admin       admin@example.com");
    expect(first).toMatch(/Password {4}Gen3rated .*shown only now/);

    const later = servingSummary({
      url: "http://localhost:3000",
      publicUrl: "https://users.example.com",
      mongodbUri: "mongodb://app:pw@db/prod",
      adminEmail: "admin@example.com",
    }).join("\n");
    expect(later).toContain("Serving     https://users.example.com");
    expect(later).toContain("Listening   http://localhost:3000");
    expect(later).toContain("Database    MongoDB at mongodb://app:****@db/prod");
    expect(later).not.toContain("pw@");
    expect(later).not.toMatch(/Password/);
  });
});
