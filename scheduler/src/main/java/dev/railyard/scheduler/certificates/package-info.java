/**
 * The self-signed serving certificate of the pods/binding admission webhook ({@code railyard serve
 * --webhook-self-signed}): a CA and a serving certificate for the Service's DNS names, generated with BouncyCastle
 * over the JDK's JCA providers, kept in a Secret ({@code tls.crt}, {@code tls.key}, {@code ca.crt}) with optimistic
 * concurrency between replicas, the CA written into the MutatingWebhookConfiguration's {@code caBundle}, and
 * rotated in place when less than a third of its lifetime is left.
 */
package dev.railyard.scheduler.certificates;
