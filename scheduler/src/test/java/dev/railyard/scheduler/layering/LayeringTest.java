package dev.railyard.scheduler.layering;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The scheduler's package arrows (README "Layout"; issue 19: the bind path goes one way). Hints are three programs:
 * computing them ({@code hints}), delivering them with the Binding ({@code hints.delivery}) and turning them into
 * NCCL settings inside the pod ({@code hints.podenv}); the last two use the first, never each other, and neither the
 * computation nor the protocol adapters know who delivers. The HTTP server mounts the adapters, so they and the
 * service do not know it; what they share with it about callers' input (such as the rate-limited log lines a caller
 * can cause) lives in {@code input}, which knows no other package. Each rule fails when one import breaks it.
 */
class LayeringTest {
    private static final String ROOT = "dev.railyard.scheduler";
    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
    }

    @Test
    void hintComputationKnowsNeitherDeliveryNorThePodSide() {
        noClasses().that().resideInAPackage(ROOT + ".hints")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".hints.delivery..",
                        ROOT + ".hints.podenv..", ROOT + ".protocol..", ROOT + ".service..", ROOT + ".cli..",
                        ROOT + ".server..", ROOT + ".cluster..")
                .check(main);
    }

    @Test
    void theInPodEnvToolReadsHintsAndNothingOfTheExtender() {
        noClasses().that().resideInAPackage(ROOT + ".hints.podenv..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".hints.delivery..",
                        ROOT + ".protocol..", ROOT + ".service..", ROOT + ".cli..", ROOT + ".server..",
                        ROOT + ".cluster..", ROOT + ".engine..", ROOT + ".ipam..")
                .check(main);
    }

    @Test
    void deliveryIsCalledThroughProtocolInterfacesAndCallsNoServiceOrCli() {
        noClasses().that().resideInAPackage(ROOT + ".hints.delivery..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".hints.podenv..", ROOT + ".service..",
                        ROOT + ".cli..", ROOT + ".server..")
                .check(main);
    }

    @Test
    void protocolAdaptersAndTheEngineKnowNoHintDeliveryServiceOrCli() {
        noClasses().that().resideInAnyPackage(ROOT + ".protocol..", ROOT + ".engine..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".hints..", ROOT + ".service..",
                        ROOT + ".cli..")
                .check(main);
    }

    @Test
    void adaptersServiceHintsAndInputDoNotKnowTheServer() {
        noClasses().that().resideInAnyPackage(ROOT + ".protocol..", ROOT + ".service..", ROOT + ".engine..",
                        ROOT + ".hints..", ROOT + ".input..")
                .should().dependOnClassesThat().resideInAPackage(ROOT + ".server..")
                .check(main);
    }

    @Test
    void inputRulesKnowNoOtherRailyardPackage() {
        noClasses().that().resideInAPackage(ROOT + ".input")
                .should().dependOnClassesThat(resideInAPackage(ROOT + "..")
                        .and(resideOutsideOfPackage(ROOT + ".input")))
                .check(main);
    }
}
