// Initiates the replica set rs0 of compose.yaml once, and waits until it has
// a primary. Run by the one-shot mongo-init service with mongosh, connected
// directly to mongo1; safe to run again (it then only waits for the primary).
const rsConfig = {
  _id: "rs0",
  members: [
    { _id: 0, host: "mongo1:27017", priority: 2 },
    { _id: 1, host: "mongo2:27017", priority: 1 },
    { _id: 2, host: "mongo3:27017", priority: 1 },
  ],
};

function status() {
  try {
    return rs.status();
  } catch (e) {
    if (e.codeName === "NotYetInitialized" || e.code === 94) return null;
    throw e;
  }
}

if (status() === null) {
  print("mongo-init: initiating replica set rs0");
  const res = rs.initiate(rsConfig);
  if (res.ok !== 1) {
    print("mongo-init: rs.initiate failed: " + JSON.stringify(res));
    quit(1);
  }
} else {
  print("mongo-init: replica set rs0 already initiated");
}

// Wait (bounded) for a primary, so the app starts against a writable set.
const deadline = Date.now() + 120 * 1000;
for (;;) {
  const s = status();
  const primary = s && s.members.find((m) => m.stateStr === "PRIMARY");
  if (primary) {
    print("mongo-init: primary is " + primary.name);
    break;
  }
  if (Date.now() > deadline) {
    print("mongo-init: no primary after 120s");
    quit(1);
  }
  sleep(1000);
}
