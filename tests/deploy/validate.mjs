// Validates Kubernetes objects (multi-document YAML files, e.g. `kubectl kustomize` output)
// against the OpenAPI schemas of Kubernetes (npm: kubernetes-models) and of the Prometheus
// Operator CRDs (npm: @kubernetes-models/prometheus-operator).
//
//   node tests/deploy/validate.mjs FILE...
//
// Prints one line per object; exits 1 when an object is invalid, has a kind no schema covers, or
// when the files hold no object at all; 2 on bad usage or unreadable YAML.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

// apiVersion -> module prefix of its models. Everything podwait ships must be listed here: an
// object of another API group fails rather than passing unchecked.
const API_MODULES = {
  v1: "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "rbac.authorization.k8s.io/v1": "kubernetes-models/rbac.authorization.k8s.io/v1",
  "policy/v1": "kubernetes-models/policy/v1",
  "networking.k8s.io/v1": "kubernetes-models/networking.k8s.io/v1",
  "monitoring.coreos.com/v1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
};

async function modelFor(apiVersion, kind) {
  const prefix = API_MODULES[apiVersion];
  if (!prefix || !/^[A-Z][A-Za-z0-9]*$/.test(String(kind))) return null;
  try {
    const mod = await import(`${prefix}/${kind}`);
    return mod[kind] ?? null;
  } catch {
    return null;
  }
}

function describe(obj) {
  const meta = obj?.metadata ?? {};
  const where = meta.namespace ? `${meta.namespace}/` : "";
  return `${obj?.apiVersion} ${obj?.kind} ${where}${meta.name ?? "(no name)"}`;
}

async function main(files) {
  if (files.length === 0) {
    console.error("usage: node validate.mjs FILE...");
    return 2;
  }
  let objects = 0;
  let failures = 0;
  for (const file of files) {
    const docs = parseAllDocuments(readFileSync(file, "utf8"));
    for (const doc of docs) {
      if (doc.errors.length > 0) {
        console.error(`${file}: YAML error: ${doc.errors[0].message}`);
        return 2;
      }
      const obj = doc.toJS();
      if (obj === null || obj === undefined) continue;
      objects++;
      const Model = await modelFor(obj.apiVersion, obj.kind);
      if (!Model) {
        console.log(`FAIL ${file}: ${describe(obj)}: no schema for this apiVersion/kind`);
        failures++;
        continue;
      }
      if (!obj.metadata?.name) {
        console.log(`FAIL ${file}: ${describe(obj)}: metadata.name is required`);
        failures++;
        continue;
      }
      try {
        new Model(obj).validate();
        console.log(`ok   ${describe(obj)}`);
      } catch (e) {
        console.log(`FAIL ${file}: ${describe(obj)}: ${e.message}`);
        failures++;
      }
    }
  }
  if (objects === 0) {
    console.log("FAIL no objects found");
    return 1;
  }
  console.log(`${objects} objects, ${failures} invalid`);
  return failures === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
