package dev.railyard.topology;

/**
 * Bad input that Railyard cannot use: a malformed dump, an unreadable file, an unknown format.
 * The message is one line that names what and where (file, line, column), meant for a person.
 */
public class InputException extends RuntimeException {
    public InputException(String message) {
        super(message);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }
}
