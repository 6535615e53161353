// Checks Kubernetes manifests against the API's JSON schema, as the npm package
// kubernetes-models holds it: every document of every file given must be an object of a
// kind listed here, and its fields must have the types and required members the schema
// says (unknown fields are not refused: the schema allows them). Prints one line a
// document; exits 1 on the first that does not validate.
//   node validate.mjs FILE.yaml...
import { readFileSync } from "node:fs";
import yaml from "js-yaml";
import { CronJob, Job } from "kubernetes-models/batch/v1";
import { PersistentVolumeClaim } from "kubernetes-models/v1";

const models = {
  "batch/v1 CronJob": CronJob,
  "batch/v1 Job": Job,
  "v1 PersistentVolumeClaim": PersistentVolumeClaim,
};

let status = 0;
for (const file of process.argv.slice(2)) {
  for (const document of yaml.loadAll(readFileSync(file, "utf8"))) {
    const kind = `${document.apiVersion} ${document.kind}`;
    const Model = models[kind];
    try {
      if (!Model) throw new Error(`no schema here for ${kind}`);
      new Model(document).validate();
      console.log(`${file}: ${kind} ${document.metadata.name}: valid`);
    } catch (error) {
      console.error(`${file}: ${kind} ${document.metadata?.name}: ${error.message}`);
      status = 1;
    }
  }
}
process.exit(status);
