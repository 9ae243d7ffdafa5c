/**
 * The HTTP service: JDK {@code com.sun.net.httpserver} on virtual threads (chosen by measurement,
 * docs/adr/0003-http-server.md), mounting the protocol adapters' verbs plus {@code /healthz}, {@code /readyz}
 * and {@code /metrics}.
 */
package dev.railyard.scheduler.server;
