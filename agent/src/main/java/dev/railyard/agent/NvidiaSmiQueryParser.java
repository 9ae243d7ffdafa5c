package dev.railyard.agent;

import dev.railyard.topology.InputException;
import dev.railyard.topology.discovery.PciBusId;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the GPU inventory from {@code nvidia-smi -q -x} (root {@code <nvidia_smi_log>}, one {@code <gpu id="...">}
 * per GPU in NVML index order, with {@code <product_name>}, {@code <uuid>}, {@code <minor_number>} and
 * {@code <pci><pci_bus_id>}; layout of NVIDIA's {@code nvsmi_device_v12.dtd}, which is never loaded).
 *
 * <p>Parsed with the JDK's DOM parser with external DTDs and entities disabled. Elements other than those above
 * are ignored, so newer drivers' additions do not matter. Stateless and thread-safe.
 */
public final class NvidiaSmiQueryParser {
    private NvidiaSmiQueryParser() {
    }

    /**
     * @param xml    the command's standard output
     * @param origin what the text came from, for messages ({@code "nvidia-smi -q -x"} or a file name)
     * @return GPUs in document order; empty when the document lists none
     * @throws InputException when the text is not well-formed XML, its root is not {@code nvidia_smi_log}, or a GPU
     *                        has no usable PCI bus id; the message names the origin, line and column
     */
    public static List<NvidiaSmiGpu> parse(String xml, String origin) {
        Document doc = read(xml, origin);
        Element root = doc.getDocumentElement();
        if (!"nvidia_smi_log".equals(root.getTagName())) {
            throw new InputException(origin + ": root element is <" + root.getTagName()
                    + ">, expected <nvidia_smi_log> (output of nvidia-smi -q -x)");
        }
        List<NvidiaSmiGpu> gpus = new ArrayList<>();
        for (Element gpu : children(root, "gpu")) {
            int index = gpus.size();
            String busText = child(gpu, "pci").flatMap(pci -> text(pci, "pci_bus_id")).orElse(gpu.getAttribute("id"));
            PciBusId busId = PciBusId.parse(busText).orElseThrow(() -> new InputException(origin + ": <gpu> number "
                    + index + " has no usable PCI bus id (pci_bus_id / id = '" + busText + "')"));
            Integer minor = text(gpu, "minor_number").filter(s -> s.matches("\\d+")).map(Integer::valueOf).orElse(null);
            String uuid = text(gpu, "uuid").filter(s -> !s.equalsIgnoreCase("N/A")).orElse(null);
            gpus.add(new NvidiaSmiGpu(index, uuid, busId.toString(), minor, text(gpu, "product_name").orElse(null)));
        }
        return List.copyOf(gpus);
    }

    private static Document read(String xml, String origin) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
            factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            factory.setNamespaceAware(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(null);
            return builder.parse(new InputSource(new StringReader(xml)));
        } catch (SAXParseException e) {
            throw new InputException(origin + ": line " + e.getLineNumber() + ", column " + e.getColumnNumber()
                    + ": " + e.getMessage(), e);
        } catch (SAXException | IOException e) {
            throw new InputException(origin + ": not readable as XML: " + e.getMessage(), e);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("JDK XML parser lacks a required feature", e);
        }
    }

    private static List<Element> children(Element parent, String tag) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element e && e.getTagName().equals(tag)) {
                out.add(e);
            }
        }
        return out;
    }

    private static Optional<Element> child(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> text(Element parent, String tag) {
        return child(parent, tag).map(e -> e.getTextContent().strip()).filter(s -> !s.isEmpty());
    }
}
