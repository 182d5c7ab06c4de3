// Validates Kubernetes objects (multi-document YAML files, e.g. `kubectl kustomize` output)
// against the OpenAPI schemas of Kubernetes (npm: kubernetes-models) and of the Prometheus
// Operator CRDs (npm: @kubernetes-models/prometheus-operator).
//
//   node tests/deploy/validate.mjs FILE...
//
// Prints one line per object; exits 1 when an object is invalid, has a kind no schema covers, or
// when the files hold no object at all; 2 on bad usage or unreadable YAML.
//
// The JSON schemas allow fields they do not know (as the API server drops them, silently, unless
// asked for strict validation), so a misspelt field such as `readinesProbe` would pass them. A
// second pass therefore type-checks every object as an object literal of its model's TypeScript
// interface (generated from the same OpenAPI schema), where an unknown field anywhere is an error.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
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

// Unknown fields, by type-checking `const o: I<Kind> = <object>;` for every object. Returns a
// list of "object: message" strings.
function unknownFields(checked) {
  const dir = join(dirname(fileURLToPath(import.meta.url)), "node_modules", ".podwait-fields");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `objects-${process.pid}.ts`);
  const lines = [];
  checked.forEach(({ obj, module }, i) => {
    lines.push(`import type { I${obj.kind} as T${i} } from "${module}";`);
  });
  checked.forEach(({ obj }, i) => {
    lines.push(`export const o${i}: T${i} = ${JSON.stringify(obj)};`);
  });
  writeFileSync(file, lines.join("\n") + "\n");
  try {
    return diagnose(file, checked);
  } finally {
    rmSync(file, { force: true });
  }
}

function diagnose(file, checked) {
  const program = ts.createProgram([file], {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  });
  const out = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
    let which = "(imports)";
    if (d.file && d.start !== undefined) {
      const line = d.file.getLineAndCharacterOfPosition(d.start).line;
      const index = line - checked.length;
      which = index >= 0 && index < checked.length ? describe(checked[index].obj) : which;
    }
    out.push(`${which}: ${text}`);
  }
  return out;
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
  const checked = [];
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
        checked.push({ obj, module: `${API_MODULES[obj.apiVersion]}/${obj.kind}` });
      } catch (e) {
        console.log(`FAIL ${file}: ${describe(obj)}: ${e.message}`);
        failures++;
      }
    }
  }
  if (checked.length > 0) {
    const problems = unknownFields(checked);
    for (const p of problems) console.log(`FAIL unknown or mistyped field: ${p}`);
    failures += problems.length;
  }
  if (objects === 0) {
    console.log("FAIL no objects found");
    return 1;
  }
  console.log(`${objects} objects, ${failures} invalid`);
  return failures === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
