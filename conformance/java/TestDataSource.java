package poolsim.conformance;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The database HikariCP is given (HikariConfig.setDataSource): opening a connection sleeps the
 * scripted connect time and numbers it in creation order; a connection is a
 * java.lang.reflect.Proxy that answers isValid with true, runs statements in no time and records
 * when it is closed. Nothing else happens, so what the harness measures is the pool's own code.
 */
final class TestDataSource implements DataSource {
    /** Implemented by every connection: its number, which a borrower reads through unwrap. */
    interface Numbered {
        int number();
    }

    /** One connection opened through this DataSource. */
    static final class Conn {
        final int number;
        final long connectNanos; // when getConnection was called
        volatile long openedNanos; // when it returned the connection; 0 if it never did
        volatile long closedNanos; // when the pool closed it; 0 while open

        Conn(int number, long connectNanos) {
            this.number = number;
            this.connectNanos = connectNanos;
        }
    }

    final List<Conn> conns = new CopyOnWriteArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final long connectMs;

    TestDataSource(long connectMs) {
        this.connectMs = connectMs;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Conn c = new Conn(next.incrementAndGet(), System.nanoTime());
        conns.add(c);
        if (connectMs > 0) {
            try {
                Thread.sleep(connectMs);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new SQLException("test database: interrupted while connecting", x);
            }
        }
        c.openedNanos = System.nanoTime();
        return (Connection) Proxy.newProxyInstance(TestDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class, Numbered.class}, new ConnHandler(c));
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger("poolsim.conformance");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("test database: not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }

    /** The default answer of a method nobody scripted: zero, false or null. */
    private static Object zero(Method m) {
        Class<?> r = m.getReturnType();
        if (r == boolean.class) {
            return false;
        }
        if (r == int.class) {
            return 0;
        }
        if (r == long.class) {
            return 0L;
        }
        return null;
    }

    /** Answers for the methods of the proxy that are not JDBC calls. */
    private static Object objectMethod(Object proxy, Method m, Object[] args, String name) {
        switch (m.getName()) {
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == args[0];
            default:
                return name;
        }
    }

    private static final class ConnHandler implements InvocationHandler {
        private final Conn c;

        ConnHandler(Conn c) {
            this.c = c;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws SQLException {
            if (m.getDeclaringClass() == Object.class) {
                return objectMethod(proxy, m, args, "test-connection-" + c.number);
            }
            switch (m.getName()) {
                case "number":
                    return c.number;
                case "isValid":
                    return true;
                case "isClosed":
                    return c.closedNanos != 0;
                case "close":
                    if (c.closedNanos == 0) {
                        c.closedNanos = System.nanoTime();
                    }
                    return null;
                case "getAutoCommit":
                    return true;
                case "getTransactionIsolation":
                    return Connection.TRANSACTION_READ_COMMITTED;
                case "createStatement":
                    return Proxy.newProxyInstance(TestDataSource.class.getClassLoader(), new Class<?>[] {Statement.class},
                            (p, sm, sa) -> {
                                if (sm.getDeclaringClass() == Object.class) {
                                    return objectMethod(p, sm, sa, "test-statement");
                                }
                                return sm.getName().equals("getConnection") ? proxy : zero(sm);
                            });
                case "isWrapperFor":
                    return ((Class<?>) args[0]).isInstance(proxy);
                case "unwrap":
                    if (((Class<?>) args[0]).isInstance(proxy)) {
                        return proxy;
                    }
                    throw new SQLException("test database: not a " + args[0]);
                default:
                    return zero(m);
            }
        }
    }
}
