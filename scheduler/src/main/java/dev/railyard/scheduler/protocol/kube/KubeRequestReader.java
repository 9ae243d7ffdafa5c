package dev.railyard.scheduler.protocol.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.KnownNames;
import dev.railyard.scheduler.protocol.PodJson;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireJson;

import dev.railyard.scheduler.input.ObjectNames;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Streaming readers for kube-scheduler extender v1 requests (kubernetes/kube-scheduler extender/v1/types.go:
 * no json tags, so keys are the Go field names; docs/formats/kube-extender.md §1).
 *
 * <p>ExtenderArgs {@code {"Pod": v1.Pod, "Nodes": v1.NodeList|null, "NodeNames": [string]|null}}: with
 * {@code nodeCacheCapable} the scheduler sends {@code NodeNames}, otherwise a full {@code Nodes} list. For a
 * full list only each item's {@code metadata.name} is read, and the byte range of each item is kept so the
 * filter reply can echo the passing nodes unchanged (kube-scheduler takes the reply's {@code Nodes.items} as
 * the filtered nodes: pkg/scheduler/extender.go {@code Filter}).
 *
 * <p>Refused (400): a key given twice in any object read here, node names, pod names and node targets that are
 * not DNS-1123 subdomains, a pod namespace that is not a DNS-1123 label ({@link ObjectNames}), and what
 * {@link PodJson} refuses.
 */
final class KubeRequestReader {

    /** One node of a full {@code Nodes.items} list: its name and where its JSON object sits in the body. */
    record RawNode(String name, int start, int end) {
    }

    /**
     * A parsed ExtenderArgs.
     *
     * @param pod        the pod
     * @param nodeNames  candidate node names in request order
     * @param cacheMode  true when the request carried {@code NodeNames} (nodeCacheCapable)
     * @param rawNodes   with a full {@code Nodes} list: one entry per item, else empty
     */
    record ExtenderArgs(ExtenderPod pod, List<String> nodeNames, boolean cacheMode, List<RawNode> rawNodes) {
    }

    private KubeRequestReader() {
    }

    static ExtenderArgs readArgs(byte[] body, String verb) throws WireFormatException {
        return readArgs(body, verb, KnownNames.NONE);
    }

    /**
     * @param known the cluster's node names: a {@code NodeNames} entry found there is taken as the cluster's string
     *              (valid by construction), anything else is read and checked
     */
    static ExtenderArgs readArgs(byte[] body, String verb, KnownNames known) throws WireFormatException {
        JsonParser p = WireJson.openObject(body, verb);
        try (p) {
            ExtenderPod pod = null;
            List<String> names = null;
            List<RawNode> raw = null;
            Set<String> keys = new HashSet<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                WireJson.unique(keys, p, verb, "request");
                String key = p.currentName();
                p.nextToken();
                switch (key) {
                    case "Pod" -> {
                        if (p.currentToken() != JsonToken.VALUE_NULL) {
                            pod = PodJson.read(p, verb, "Pod").toExtenderPod(verb, "Pod", null, null, null, null);
                        }
                    }
                    case "NodeNames" -> names = readNames(p, verb, known, body.length);
                    case "Nodes" -> raw = readNodeList(p, verb);
                    default -> WireJson.skip(p);
                }
            }
            WireJson.expectEnd(p, verb);
            if (pod == null) {
                throw WireJson.missing(verb, "request has no \"Pod\" (or it is null)");
            }
            if (names != null) {
                return new ExtenderArgs(pod, names, true, List.of());
            }
            if (raw != null) {
                List<String> fromItems = new ArrayList<>(raw.size());
                for (RawNode n : raw) {
                    fromItems.add(n.name());
                }
                return new ExtenderArgs(pod, fromItems, false, raw);
            }
            throw WireJson.missing(verb, "request has neither \"NodeNames\" nor \"Nodes\"");
        } catch (IOException e) {
            throw WireJson.translate(e, verb);
        }
    }

    /** @param bodyLength the request's length: with the known names, a bound on how many names it can hold */
    private static List<String> readNames(JsonParser p, String verb, KnownNames known, int bodyLength)
            throws IOException, WireFormatException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw WireJson.wrongType(p, verb, "NodeNames", "an array of strings");
        }
        // a first size only: the known names, or as many as the body holds at 12 bytes each ("gpu-00042",)
        List<String> out = new ArrayList<>(Math.max(10, Math.min(known.size(), bodyLength / 12)));
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw WireJson.wrongType(p, verb, "NodeNames[" + out.size() + "]", "a string");
            }
            // a name longer than any subdomain is never in the table: not looked up, so it is not copied twice
            String n = p.getTextLength() > ObjectNames.SUBDOMAIN_MAX ? null
                    : known.find(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
            if (n != null) {
                out.add(n); // one of the cluster's names, a valid subdomain by construction
                continue;
            }
            n = p.getText();
            if (n.isEmpty()) {
                throw WireJson.missing(verb, "NodeNames[" + out.size() + "] is an empty node name");
            }
            Optional<String> problem = ObjectNames.subdomainProblem(n);
            if (problem.isPresent()) { // the path is built only for the error: a filter reads 5,000 names
                PodJson.checkName(verb, "NodeNames[" + out.size() + "]", n, problem);
            }
            out.add(n);
        }
        return out;
    }

    private static List<RawNode> readNodeList(JsonParser p, String verb) throws IOException, WireFormatException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        WireJson.object(p, verb, "Nodes");
        List<RawNode> out = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            WireJson.unique(keys, p, verb, "Nodes");
            String key = p.currentName();
            p.nextToken();
            if (!"items".equals(key)) {
                WireJson.skip(p);
                continue;
            }
            if (p.currentToken() == JsonToken.VALUE_NULL) {
                continue;
            }
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw WireJson.wrongType(p, verb, "Nodes.items", "an array of Node objects");
            }
            while (p.nextToken() != JsonToken.END_ARRAY) {
                String path = "Nodes.items[" + out.size() + "]";
                WireJson.object(p, verb, path);
                long start = p.currentTokenLocation().getByteOffset();
                String name = WireJson.metadataName(p, verb, path);
                long end = p.currentLocation().getByteOffset();
                if (name == null || name.isEmpty()) {
                    throw WireJson.missing(verb, path + " has no metadata.name");
                }
                PodJson.checkName(verb, path + ".metadata.name", name, ObjectNames.subdomainProblem(name));
                out.add(new RawNode(name, Math.toIntExact(start), Math.toIntExact(end)));
            }
        }
        return out;
    }

    /**
     * Reads ExtenderBindingArgs {@code {"PodName","PodNamespace","PodUID","Node"}}.
     *
     * @throws WireFormatException also when {@code PodName} or {@code Node} is not a DNS-1123 subdomain or
     *                             {@code PodNamespace} not a DNS-1123 label: no such object can exist
     */
    static BindArgs readBindArgs(byte[] body, String verb) throws WireFormatException {
        JsonParser p = WireJson.openObject(body, verb);
        try (p) {
            String name = null, ns = null, uid = null, node = null;
            Set<String> keys = new HashSet<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                WireJson.unique(keys, p, verb, "request");
                String key = p.currentName();
                p.nextToken();
                switch (key) {
                    case "PodName" -> name = WireJson.string(p, verb, "PodName");
                    case "PodNamespace" -> ns = WireJson.string(p, verb, "PodNamespace");
                    case "PodUID" -> uid = WireJson.string(p, verb, "PodUID");
                    case "Node" -> node = WireJson.string(p, verb, "Node");
                    default -> WireJson.skip(p);
                }
            }
            WireJson.expectEnd(p, verb);
            if (name == null || name.isEmpty()) {
                throw WireJson.missing(verb, "request has no PodName");
            }
            if (ns == null || ns.isEmpty()) {
                throw WireJson.missing(verb, "request has no PodNamespace");
            }
            if (node == null || node.isEmpty()) {
                throw WireJson.missing(verb, "request has no Node");
            }
            PodJson.checkName(verb, "PodName", name, ObjectNames.subdomainProblem(name));
            PodJson.checkName(verb, "PodNamespace", ns, ObjectNames.labelProblem(ns));
            PodJson.checkName(verb, "Node", node, ObjectNames.subdomainProblem(node));
            return new BindArgs(new PodRef(ns, name, uid), node);
        } catch (IOException e) {
            throw WireJson.translate(e, verb);
        }
    }

    /** A parsed ExtenderBindingArgs. */
    record BindArgs(PodRef pod, String node) {
    }
}
