package dev.railyard.scheduler.access;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link KubernetesAccess} through the API server, with the kubelet's webhook cache times: a token's review is
 * kept 2 minutes when it authenticated and 10 seconds when not; an authorization decision 5 minutes when allowed
 * and 30 seconds when denied (kubelet {@code --authentication-token-webhook-cache-ttl},
 * {@code --authorization-webhook-cache-authorized-ttl}/{@code -unauthorized-ttl} defaults). Tokens are cached by
 * their SHA-256, never as text. At most 10,000 entries per cache. Needs {@code create} on {@code tokenreviews} and
 * {@code subjectaccessreviews} (the chart grants both). Thread-safe.
 */
public final class ApiServerAccess implements KubernetesAccess {
    private static final int MAX_ENTRIES = 10_000;

    private final KubernetesClient client;
    private final Cache<String, Optional<User>> tokens;
    private final Cache<Question, Decision> decisions;

    private record Question(User user, ResourceAttributes what) {
    }

    /** @param client a client whose identity may create TokenReviews and SubjectAccessReviews */
    public ApiServerAccess(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokens = Caffeine.newBuilder().maximumSize(MAX_ENTRIES)
                .expireAfter(expiry((Optional<User> u) -> u.isPresent(), Duration.ofMinutes(2), Duration.ofSeconds(10)))
                .build();
        this.decisions = Caffeine.newBuilder().maximumSize(MAX_ENTRIES)
                .expireAfter(expiry(Decision::allowed, Duration.ofMinutes(5), Duration.ofSeconds(30)))
                .build();
    }

    @Override
    public Optional<User> authenticate(String token) throws AccessException {
        String key = sha256(token);
        Optional<User> cached = tokens.getIfPresent(key);
        if (cached != null) {
            return cached;
        }
        TokenReview review;
        try {
            review = client.authentication().v1().tokenReviews().create(new TokenReviewBuilder()
                    .withNewSpec().withToken(token).endSpec().build());
        } catch (KubernetesClientException e) {
            throw new AccessException("TokenReview failed: " + describe(e), e);
        }
        Optional<User> user = Optional.empty();
        if (review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAuthenticated())
                && review.getStatus().getUser() != null && review.getStatus().getUser().getUsername() != null) {
            var u = review.getStatus().getUser();
            user = Optional.of(new User(u.getUsername(), u.getUid(), u.getGroups()));
        }
        tokens.put(key, user);
        return user;
    }

    @Override
    public Decision authorize(User user, ResourceAttributes what) throws AccessException {
        Question q = new Question(user, what);
        Decision cached = decisions.getIfPresent(q);
        if (cached != null) {
            return cached;
        }
        SubjectAccessReview review;
        try {
            review = client.authorization().v1().subjectAccessReview().create(new SubjectAccessReviewBuilder()
                    .withNewSpec().withUser(user.name()).withUid(user.uid().isEmpty() ? null : user.uid())
                    .withGroups(user.groups())
                    .withNewResourceAttributes().withVerb(what.verb()).withGroup(what.group())
                    .withResource(what.resource())
                    .withNamespace(what.namespace().isEmpty() ? null : what.namespace())
                    .withName(what.name().isEmpty() ? null : what.name())
                    .endResourceAttributes().endSpec().build());
        } catch (KubernetesClientException e) {
            throw new AccessException("SubjectAccessReview failed: " + describe(e), e);
        }
        boolean allowed = review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAllowed())
                && !Boolean.TRUE.equals(review.getStatus().getDenied());
        Decision d = new Decision(allowed, review.getStatus() == null ? "" : review.getStatus().getReason());
        decisions.put(q, d);
        return d;
    }

    private static <V> Expiry<Object, V> expiry(java.util.function.Predicate<V> good, Duration ifGood, Duration ifNot) {
        return new Expiry<>() {
            @Override
            public long expireAfterCreate(Object key, V value, long currentTime) {
                return (good.test(value) ? ifGood : ifNot).toNanos();
            }

            @Override
            public long expireAfterUpdate(Object key, V value, long currentTime, long currentDuration) {
                return expireAfterCreate(key, value, currentTime);
            }

            @Override
            public long expireAfterRead(Object key, V value, long currentTime, long currentDuration) {
                return currentDuration;
            }
        };
    }

    private static String describe(KubernetesClientException e) {
        String m = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                : String.valueOf(e.getMessage());
        return (e.getCode() == 0 ? "API server unreachable: " : "HTTP " + e.getCode() + ": ") + m.replaceAll("\\s+", " ");
    }

    private static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
