import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A service on virtual threads whose wait has moved to its connection pool, for the virtual-thread
 * thread dumps of threaddump/testdata (R138). Run on JDK 21+ with HikariCP and SLF4J on the class
 * path and -Djdk.virtualThreadScheduler.parallelism=4 -Djdk.virtualThreadScheduler.maxPoolSize=4:
 *
 * <ul>
 *   <li>a HikariCP 2.7.9 pool of 4 connections (a test DataSource whose connections answer isValid);
 *   <li>24 requests, each a virtual thread of Executors.newVirtualThreadPerTaskExecutor(): 4 hold a
 *       connection and sleep in their "query" (TIMED_WAITING, unmounted), 20 wait for a connection in
 *       ConcurrentBag.borrow (TIMED_WAITING in SynchronousQueue.poll, unmounted);
 *   <li>2 virtual threads that block inside a class initializer: pinned (R135), each holding a
 *       carrier;
 *   <li>1 virtual thread that computes without end: mounted, RUNNABLE.
 * </ul>
 *
 * So 3 of the 4 carriers are busy. It prints READY when every thread is in place and exits when
 * its standard input closes.
 */
public final class VirtualHikari {
    static final AtomicInteger inClinit = new AtomicInteger();
    static volatile boolean spinning;

    /** Blocks in its static initializer: the thread initialising it is pinned. */
    static final class SlowInitA {
        static {
            inClinit.incrementAndGet();
            sleep(600_000);
        }

        static void touch() {}
    }

    /** A second class, so that a second virtual thread is pinned (not waiting for the first). */
    static final class SlowInitB {
        static {
            inClinit.incrementAndGet();
            sleep(600_000);
        }

        static void touch() {}
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A DataSource whose connections do nothing but say they are valid. */
    static DataSource testDataSource() {
        return (DataSource) Proxy.newProxyInstance(VirtualHikari.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (p, m, a) -> {
                    switch (m.getName()) {
                        case "getConnection":
                            return Proxy.newProxyInstance(VirtualHikari.class.getClassLoader(),
                                    new Class<?>[] {Connection.class}, (cp, cm, ca) -> {
                                        switch (cm.getName()) {
                                            case "isValid": return true;
                                            case "isClosed": return false;
                                            case "getAutoCommit": return true;
                                            case "isReadOnly": return false;
                                            case "getTransactionIsolation": return Connection.TRANSACTION_READ_COMMITTED;
                                            case "getNetworkTimeout": return 0;
                                            case "hashCode": return System.identityHashCode(cp);
                                            case "equals": return cp == ca[0];
                                            case "toString": return "test-connection";
                                            default: return null;
                                        }
                                    });
                        case "getLoginTimeout": return 0;
                        case "getLogWriter": return (PrintWriter) null;
                        case "getParentLogger": return Logger.getGlobal();
                        case "hashCode": return System.identityHashCode(p);
                        case "equals": return p == a[0];
                        case "toString": return "test-datasource";
                        default: return null;
                    }
                });
    }

    public static void main(String[] args) throws Exception {
        HikariConfig c = new HikariConfig();
        c.setDataSource(testDataSource());
        c.setPoolName("db");
        c.setMaximumPoolSize(4);
        c.setMinimumIdle(4);
        c.setConnectionTimeout(600_000);
        HikariDataSource ds = new HikariDataSource(c);
        AtomicInteger holding = new AtomicInteger();

        ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
        for (int i = 0; i < 24; i++) {
            requests.execute(() -> {
                try (Connection conn = ds.getConnection()) {
                    holding.incrementAndGet();
                    sleep(600_000); // the query
                } catch (Exception e) {
                    e.printStackTrace();
                }
            });
        }
        ExecutorService other = Executors.newVirtualThreadPerTaskExecutor();
        other.execute(SlowInitA::touch);
        other.execute(SlowInitB::touch);
        other.execute(() -> {
            spinning = true;
            long x = 0;
            while (true) {
                x += System.nanoTime() & 1; // computes: never parks, never yields
                if (x == Long.MIN_VALUE) {
                    break;
                }
            }
        });
        while (holding.get() < 4 || inClinit.get() < 2 || !spinning
                || ds.getHikariPoolMXBean() == null || ds.getHikariPoolMXBean().getThreadsAwaitingConnection() < 20) {
            Thread.sleep(20);
        }
        Thread.sleep(500); // every waiter parked in its poll
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for EOF
        }
        System.exit(0);
    }
}
