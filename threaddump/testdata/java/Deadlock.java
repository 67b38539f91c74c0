public class Deadlock {
    public static void main(String[] a) throws Exception {
        Object x = new Object(), y = new Object();
        Thread t1 = new Thread(() -> { synchronized (x) { sleep(); synchronized (y) { } } });
        Thread t2 = new Thread(() -> { synchronized (y) { sleep(); synchronized (x) { } } });
        t1.start(); t2.start();
        System.out.println("READY"); System.out.flush();
        t1.join();
    }
    static void sleep() { try { Thread.sleep(300); } catch (InterruptedException e) { } }
}
