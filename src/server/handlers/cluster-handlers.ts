import { availableParallelism, hostname } from "node:os";
import { requireSession } from "./auth-handlers";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { success } from "./reply";

/**
 * The one cluster of the local platform, by the name the platform's notebooks fall back to when
 * `CLUSTERS` is unset: they read `[0].displayName` (the cluster's fqdn, sent back in a job's
 * `compute.cluster.fqdn`) and `[0].queues[0].NAME`; `mat3ra.ide` reads `hostname` and `queues`.
 */
export const CLUSTER_NAME = "cluster-001";

/** The queue every job of the local platform runs in: ESSE's debug queue (job/compute.json's first). */
export const QUEUE_NAME = "D";

/**
 * GET /other/clusters: this machine as one cluster, its cores and its one queue, in the shape the
 * platform's web UI gives notebooks as `CLUSTERS` (`json.dumps(apiConfig.clusters)`).
 */
export function handleListClusters(info: RequestInfo, state: ServerState): Reply {
  requireSession(info, state);
  const cores = availableParallelism();
  return success([
    {
      fqdn: CLUSTER_NAME,
      displayName: CLUSTER_NAME,
      hostname: hostname(),
      cores,
      queues: [{ NAME: QUEUE_NAME, name: QUEUE_NAME, nodes: 1, ppn: cores }],
    },
  ]);
}
