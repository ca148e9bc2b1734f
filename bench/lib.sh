# Sourced by the benchmark scripts: the repository root as working directory, JDK 25 as JAVA_HOME when none is set,
# $java_bin, and build_benchmarks_jar (the JMH uber jar, bench/target/benchmarks.jar, and bench/results/).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"

build_benchmarks_jar() {
  echo "== building bench/target/benchmarks.jar"
  ./mvnw -q -pl bench -am -DskipTests package
  mkdir -p bench/results
}
