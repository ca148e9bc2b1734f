package io.metaroce.cli.perf;

import io.metaroce.net.Device;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a {@link Device}'s statistics as JSON to a file every period, from its own daemon thread (never the
 * device's agent: {@link Device#stats()} asks the agent and waits). Each write goes to a temporary file that
 * is then moved over the target, so a reader never sees half a file. {@link #close()} writes once more and stops;
 * close it before the device. Any tool holding a Device can use it ({@code --stats-file FILE}).
 */
public final class StatsFileWriter implements AutoCloseable {
    private final Device device;
    private final Path file;
    private final Path tmp;
    private final long periodMs;
    private final PrintWriter err;
    private final Thread thread;
    private final String source;
    private volatile boolean stopped;
    private boolean warned;

    private StatsFileWriter(Device device, Path file, long periodMs, PrintWriter err) {
        this.device = device;
        this.file = file.toAbsolutePath();
        this.tmp = this.file.resolveSibling(this.file.getFileName() + ".tmp");
        this.periodMs = periodMs;
        this.err = err;
        this.source = "pid " + ProcessHandle.current().pid() + ", device on port " + device.port();
        this.thread = new Thread(this::loop, "metaroce-stats-file");
        this.thread.setDaemon(true);
    }

    /** Starts writing {@code device}'s statistics to {@code file} every {@code periodMs}; problems go to {@code err}. */
    public static StatsFileWriter start(Device device, Path file, long periodMs, PrintWriter err) {
        StatsFileWriter w = new StatsFileWriter(device, file, periodMs, err);
        w.writeOnce(); // fail early and visibly on an unwritable path; later failures only warn
        w.thread.start();
        return w;
    }

    private void loop() {
        while (!stopped) {
            try {
                Thread.sleep(periodMs);
            } catch (InterruptedException e) {
                return;
            }
            if (!stopped) {
                writeOnce();
            }
        }
    }

    private synchronized void writeOnce() {
        try {
            String json = StatsJson.write(device.stats(), System.currentTimeMillis(), source);
            Path parent = file.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            if (stopped && Thread.currentThread() == thread) {
                return; // closing: the device may be going away
            }
            if (!warned) {
                warned = true;
                err.println("warning: cannot write statistics to " + file + ": " + e.getMessage());
                err.flush();
            }
        }
    }

    /** Stops the thread and writes the final statistics (the device must still be open). */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(15_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writeOnce();
    }
}
