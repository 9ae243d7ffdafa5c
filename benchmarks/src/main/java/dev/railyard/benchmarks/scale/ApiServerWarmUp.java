package dev.railyard.benchmarks.scale;

import dev.railyard.scheduler.cluster.WatchedKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Brings a just-restored kube-apiserver to the state of one that has been running: every kind serve watches is
 * listed once with {@code resourceVersion=0} (served from the API server's watch cache, which serve's paged lists
 * read too on Kubernetes 1.35), until the answer is not 429. Right after a restore the API server builds each watch cache lazily and answers 429 "storage is
 * (re)initializing" meanwhile; serve's informers then back off and retry, and time to ready measured the restore,
 * not serve (5,000 nodes: the NodeTopology list alone waited 30-40 s).
 */
final class ApiServerWarmUp {
    private ApiServerWarmUp() {
    }

    /**
     * @param client  a client of the API server
     * @param timeout longest wait per kind
     * @return seconds per kind path until a 200 (or the last status when it never came)
     */
    static Map<String, String> warm(KubernetesClient client, Duration timeout) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        String base = client.getMasterUrl().toString().replaceAll("/$", "");
        for (WatchedKind k : WatchedKind.ALL) {
            String path = (k.group().isEmpty() ? "/api/" : "/apis/" + k.group() + "/") + k.version() + "/" + k.plural()
                    + "?resourceVersion=0";
            long t0 = System.nanoTime();
            long deadline = t0 + timeout.toNanos();
            int code;
            do {
                code = get(client, base + path);
                if (code == 429 || code == 503) {
                    ScaleControlPlane.sleep(250);
                }
            } while ((code == 429 || code == 503) && System.nanoTime() < deadline);
            out.put(k.plural(), code == 200 ? String.format("%.1f s", (System.nanoTime() - t0) / 1e9)
                    : "HTTP " + code);
        }
        return out;
    }

    private static int get(KubernetesClient client, String url) throws IOException {
        HttpRequest req = client.getHttpClient().newHttpRequestBuilder().uri(url).build();
        try {
            HttpResponse<InputStream> r = client.getHttpClient().sendAsync(req, InputStream.class)
                    .get(2, TimeUnit.MINUTES);
            try (InputStream body = r.body()) {
                if (body != null) {
                    body.transferTo(OutputStream.nullOutputStream());
                }
            }
            return r.code();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while warming " + url, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("cannot list " + url + ": " + e, e);
        }
    }
}
