package dev.railyard.benchmarks;

import com.google.protobuf.CodedInputStream;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a kube-apiserver Pod list in its protobuf encoding ({@code Accept: application/vnd.kubernetes.protobuf}) as
 * far as {@code PodView} reads a Pod, skipping every other field by its length: the measurement behind
 * docs/adr/0026 (why serve's informers stay on JSON). Not used by serve.
 *
 * <p>The wire shape (docs/adr/0026 has it in full, with the upstream files): the four bytes {@code k8s\0}, then a
 * {@code runtime.Unknown} whose field 2 holds the {@code v1.PodList}; its field 2 repeats the Pods. Field numbers
 * are the {@code protobuf:"..."} tags of {@code k8s.io/api/core/v1/types.go} and
 * {@code k8s.io/apimachinery/pkg/apis/meta/v1/types.go} (Kubernetes v1.35).
 */
final class ProtobufPodList {
    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private ProtobufPodList() {
    }

    /**
     * What the comparison looks at of one pod: enough to prove both readings found the same fields.
     *
     * @param key        namespace/name
     * @param node       spec.nodeName, "" when unbound
     * @param scheduler  spec.schedulerName
     * @param phase      status.phase
     * @param containers per container and init container, {@code name requests limits} with the resource maps sorted
     * @param labels     metadata.labels count
     */
    record PodFields(String key, String node, String scheduler, String phase, List<String> containers, int labels) {
    }

    /**
     * @param body the response body as the API server sent it
     * @return the pods in list order
     * @throws IOException when the body is not a protobuf Pod list
     */
    static List<PodFields> read(byte[] body) throws IOException {
        for (int i = 0; i < MAGIC.length; i++) {
            if (body.length < MAGIC.length || body[i] != MAGIC[i]) {
                throw new IOException("not a Kubernetes protobuf body (no k8s\\0 prefix)");
            }
        }
        CodedInputStream envelope = open(body, MAGIC.length, body.length - MAGIC.length);
        List<PodFields> pods = new ArrayList<>();
        while (!envelope.isAtEnd()) {
            int tag = envelope.readTag();
            if (tag >>> 3 == 2) {
                int limit = envelope.pushLimit(envelope.readRawVarint32());
                while (!envelope.isAtEnd()) {
                    int listTag = envelope.readTag();
                    if (listTag >>> 3 == 2) {
                        int podLimit = envelope.pushLimit(envelope.readRawVarint32());
                        pods.add(pod(envelope));
                        envelope.popLimit(podLimit);
                    } else {
                        envelope.skipField(listTag);
                    }
                }
                envelope.popLimit(limit);
            } else {
                envelope.skipField(tag);
            }
        }
        return pods;
    }

    private static CodedInputStream open(byte[] b, int off, int len) {
        CodedInputStream in = CodedInputStream.newInstance(b, off, len);
        in.setSizeLimit(Integer.MAX_VALUE);
        return in;
    }

    // Pod: metadata 1, spec 2, status 3
    private static PodFields pod(CodedInputStream in) throws IOException {
        String[] meta = {"", ""};
        Map<String, String> labels = new TreeMap<>();
        String[] spec = {"", ""};
        List<String> containers = new ArrayList<>();
        String phase = "";
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (tag >>> 3) {
                case 1 -> nested(in, () -> metadata(in, meta, labels));
                case 2 -> nested(in, () -> spec(in, spec, containers));
                case 3 -> phase = status(in);
                default -> in.skipField(tag);
            }
        }
        return new PodFields(meta[1] + "/" + meta[0], spec[0], spec[1], phase, containers, labels.size());
    }

    // ObjectMeta: name 1, namespace 3, uid 5, resourceVersion 6, labels 11, annotations 12, ownerReferences 13;
    // managedFields 17 and the rest skipped by length
    private static void metadata(CodedInputStream in, String[] meta, Map<String, String> labels) throws IOException {
        Map<String, String> annotations = new TreeMap<>();
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (tag >>> 3) {
                case 1 -> meta[0] = in.readStringRequireUtf8();
                case 3 -> meta[1] = in.readStringRequireUtf8();
                case 5, 6 -> in.readStringRequireUtf8();
                case 11 -> nested(in, () -> entry(in, labels, false));
                case 12 -> nested(in, () -> entry(in, annotations, false));
                case 13 -> nested(in, () -> strings(in));
                default -> in.skipField(tag);
            }
        }
    }

    // PodSpec: nodeSelector 7, nodeName 10, hostNetwork 11, affinity 18, schedulerName 19, containers 2,
    // initContainers 20, overhead 32
    private static void spec(CodedInputStream in, String[] spec, List<String> containers) throws IOException {
        Map<String, String> selector = new TreeMap<>();
        Map<String, String> overhead = new TreeMap<>();
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (tag >>> 3) {
                case 2, 20 -> nested(in, () -> containers.add(container(in)));
                case 7 -> nested(in, () -> entry(in, selector, false));
                case 10 -> spec[0] = in.readStringRequireUtf8();
                case 11 -> in.readBool();
                case 18 -> nested(in, () -> affinity(in));
                case 19 -> spec[1] = in.readStringRequireUtf8();
                case 32 -> nested(in, () -> entry(in, overhead, true));
                default -> in.skipField(tag);
            }
        }
    }

    // Container: name 1, resources 8 (limits 1, requests 2: map<string, Quantity{string 1}>), restartPolicy 24
    private static String container(CodedInputStream in) throws IOException {
        String name = "";
        Map<String, String> limits = new TreeMap<>();
        Map<String, String> requests = new TreeMap<>();
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (tag >>> 3) {
                case 1 -> name = in.readStringRequireUtf8();
                case 8 -> nested(in, () -> {
                    while (!in.isAtEnd()) {
                        int t = in.readTag();
                        switch (t >>> 3) {
                            case 1 -> nested(in, () -> entry(in, limits, true));
                            case 2 -> nested(in, () -> entry(in, requests, true));
                            default -> in.skipField(t);
                        }
                    }
                });
                case 24 -> in.readStringRequireUtf8();
                default -> in.skipField(tag);
            }
        }
        return name + " " + requests + " " + limits;
    }

    // PodStatus: phase 1
    private static String status(CodedInputStream in) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        String phase = fieldOne(in);
        in.popLimit(limit);
        return phase;
    }

    // the message's field 1 as a string ("" without one); the rest skipped
    private static String fieldOne(CodedInputStream in) throws IOException {
        String value = "";
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (tag >>> 3 == 1) {
                value = in.readStringRequireUtf8();
            } else {
                in.skipField(tag);
            }
        }
        return value;
    }

    // Affinity: nodeAffinity 1 (required 1: NodeSelector{terms 1}; preferred 2: {weight 1, preference 2});
    // a term's matchExpressions 1 and matchFields 2 are {key 1, operator 2, values 3}
    private static void affinity(CodedInputStream in) throws IOException {
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (tag >>> 3 != 1) {
                in.skipField(tag);
                continue;
            }
            nested(in, () -> {
                while (!in.isAtEnd()) {
                    int t = in.readTag();
                    switch (t >>> 3) {
                        case 1 -> nested(in, () -> fields(in, () -> term(in), 1));
                        case 2 -> nested(in, () -> fields(in, () -> term(in), 2));
                        default -> in.skipField(t);
                    }
                }
            });
        }
    }

    private static void term(CodedInputStream in) throws IOException {
        fields(in, () -> strings(in), 1, 2);
    }

    // reads the given fields of the message as nested messages, each with 'each'; skips the rest
    private static void fields(CodedInputStream in, Body each, int... numbers) throws IOException {
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            boolean wanted = false;
            for (int n : numbers) {
                wanted |= n == tag >>> 3 && (tag & 7) == 2;
            }
            if (wanted) {
                nested(in, each);
            } else {
                in.skipField(tag);
            }
        }
    }

    // a map entry: key 1, value 2 (a string, or a Quantity whose field 1 is its string)
    private static void entry(CodedInputStream in, Map<String, String> into, boolean quantity) throws IOException {
        String key = "";
        String[] value = {""};
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (tag >>> 3 == 1) {
                key = in.readStringRequireUtf8();
            } else if (tag >>> 3 == 2 && quantity) {
                nested(in, () -> value[0] = fieldOne(in));
            } else if (tag >>> 3 == 2) {
                value[0] = in.readStringRequireUtf8();
            } else {
                in.skipField(tag);
            }
        }
        into.put(key, value[0]);
    }

    // a message of strings (an owner reference, a node selector requirement): each length-delimited field read as
    // one, the rest skipped
    private static void strings(CodedInputStream in) throws IOException {
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if ((tag & 7) == 2) {
                in.readStringRequireUtf8();
            } else {
                in.skipField(tag);
            }
        }
    }

    private interface Body {
        void read() throws IOException;
    }

    private static void nested(CodedInputStream in, Body body) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        body.read();
        in.popLimit(limit);
    }
}
