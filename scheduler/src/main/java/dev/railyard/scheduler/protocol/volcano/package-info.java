/**
 * The Volcano {@code extender} plugin adapter: streaming readers of Volcano's request bodies (Go field-name keys,
 * full pods and nodes), the reply shapes of each Volcano release, and one handler per verb. Wire format and error
 * semantics: {@code docs/formats/volcano-extender.md}.
 */
package dev.railyard.scheduler.protocol.volcano;
