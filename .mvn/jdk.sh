# Railyard: finds a JDK 21 or newer for ./mvnw, ./railyard and .ci/run (POSIX sh; sourced, defines functions only).
#
# Order: $JAVA_HOME, the JDK of the `java` on PATH, Temurin 25 and 21 under /usr/lib/jvm, every other JDK under
# /usr/lib/jvm, macOS's java_home. A JDK qualifies when bin/java and bin/javac run and report version 21 or newer.

# Prints the Java feature version of a java binary (17, 21, 25), or nothing when it does not run.
railyard_java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | cut -d. -f1
}

# Prints the home of the first JDK 21+ in the order above; returns 1 when there is none.
railyard_find_jdk() {
  case $- in *f*) railyard_noglob=1; set +f ;; *) railyard_noglob= ;; esac
  railyard_found=
  railyard_path_java="$(command -v java 2>/dev/null || true)"
  railyard_path_home=
  if [ -n "$railyard_path_java" ]; then
    railyard_path_home="$(dirname "$(dirname "$(readlink -f "$railyard_path_java" 2>/dev/null || echo "$railyard_path_java")")")"
  fi
  railyard_mac_home=
  if [ -x /usr/libexec/java_home ]; then
    railyard_mac_home="$(/usr/libexec/java_home -v 21+ 2>/dev/null || true)"
  fi
  for railyard_cand in "${JAVA_HOME:-}" "$railyard_path_home" /usr/lib/jvm/temurin-25-jdk-amd64 \
      /usr/lib/jvm/temurin-21-jdk-amd64 /usr/lib/jvm/* "$railyard_mac_home"; do
    [ -n "$railyard_cand" ] && [ -x "$railyard_cand/bin/java" ] && [ -x "$railyard_cand/bin/javac" ] || continue
    railyard_major="$(railyard_java_major "$railyard_cand/bin/java")"
    if [ "${railyard_major:-0}" -ge 21 ] 2>/dev/null; then
      railyard_found="$railyard_cand"
      break
    fi
  done
  [ -z "$railyard_noglob" ] || set -f
  [ -n "$railyard_found" ] || return 1
  printf '%s\n' "$railyard_found"
}

# Sets and exports JAVA_HOME to a JDK 21+ (saying so on stderr when it replaces an older JAVA_HOME), and adds to
# MAVEN_OPTS the flag that silences JDK 24+'s sun.misc.Unsafe warnings about Maven's own Guice. Returns 1, with a
# one-line reason on stderr, when no JDK 21+ is installed.
railyard_use_jdk() {
  railyard_home="$(railyard_find_jdk)" || {
    echo "Railyard needs a JDK 21 or newer and found none (JAVA_HOME=${JAVA_HOME:-unset}, java on PATH:" \
      "$(command -v java 2>/dev/null || echo none), /usr/lib/jvm); install one, e.g. apt-get install" \
      "openjdk-21-jdk-headless, or set JAVA_HOME to it" >&2
    return 1
  }
  if [ -n "${JAVA_HOME:-}" ] && [ "$JAVA_HOME" != "$railyard_home" ]; then
    echo "Railyard: JAVA_HOME=$JAVA_HOME is not a JDK 21 or newer; using $railyard_home" >&2
  fi
  JAVA_HOME="$railyard_home"
  export JAVA_HOME
  if [ "$(railyard_java_major "$JAVA_HOME/bin/java")" -ge 24 ] 2>/dev/null; then
    case " ${MAVEN_OPTS:-} " in
      *" --sun-misc-unsafe-memory-access="*) ;;
      *) MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }--sun-misc-unsafe-memory-access=allow"; export MAVEN_OPTS ;;
    esac
  fi
}
