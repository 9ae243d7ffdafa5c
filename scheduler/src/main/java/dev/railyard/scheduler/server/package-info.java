/**
 * The HTTP service: Netty's HTTP/1.1 codec on NIO event loops, decisions on virtual threads (chosen by
 * measurement, docs/adr/0017-netty-transport.md), mounting the protocol adapters' verbs plus {@code /healthz},
 * {@code /readyz} and {@code /metrics}.
 */
package dev.railyard.scheduler.server;
