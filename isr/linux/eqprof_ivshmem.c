// SPDX-License-Identifier: GPL-2.0
/*
 * Energy-driven source: the board's interrupt as a PCI doorbell.
 *
 * In the hardware-in-the-loop setup (docs/hil.md) the board's firmware runs
 * in simavr next to a QEMU guest, and its IRQ edges reach the guest through
 * an ivshmem-doorbell PCI device served by the bridge.  Each edge is an
 * MSI-X message: a real hardware interrupt, taken in hard interrupt context
 * with the interrupted registers, as a board wired to a GPIO gives on real
 * hardware.  The bridge counts the edges it raised in the shared memory
 * (uapi/eqprof_ivshmem.h) before it rings, so the handler knows how many
 * edges one interrupt stands for: doorbells that merged are counted as lost
 * samples, never hidden.
 *
 * The rings' seq numbers are the board's quantum numbers: the first
 * interrupt of a session is quantum `edges` (the count before it), and
 * merged edges skip as many.  A sample and the board's record of the same
 * quantum carry the same number, which is what `eqprof merge` matches.
 *
 * The PCI driver is registered for the length of a session only: the
 * device belongs to eqprof while it samples and to nobody otherwise.  Only
 * BAR 0 (the doorbell registers) is requested; BAR 2 (the shared memory)
 * is mapped without claiming it, so the workload can still announce its
 * phases through the device's resource2 file.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <asm/irq_regs.h>

#include "eqprof_dev.h"
#include "uapi/eqprof_ivshmem.h"

static struct {
	struct eqprof_dev *d;
	struct pci_dev *pdev;
	struct eqprof_ivshmem_shm __iomem *shm;
	int irq;
	u64 seen;		/* edges accounted for */
	u64 merged;		/* edges that arrived merged with another */
	u64 spurious;		/* doorbells with no new edge */
	u64 backwards;		/* times the edge count went backwards (bridge restarted) */
} ivs;

/*
 * A test's knob (test/hil on arm64): sleep this long inside each hand-over
 * with the bridge, between counting the edges and taking the interrupt at
 * the start, and between the end of the session and clearing `listening`
 * at the stop, so that edges arrive inside them and their accounting is
 * checked every run.
 */
static unsigned int handover_ms;
module_param(handover_ms, uint, 0444);
MODULE_PARM_DESC(handover_ms, "ivshmem: hold each hand-over with the bridge open this long (tests)");

static void handover_delay(void)
{
	if (handover_ms)
		msleep(handover_ms);
}

static irqreturn_t eqprof_ivshmem_irq(int irq, void *arg)
{
	struct eqprof_dev *d = arg;
	u64 edges = readq(&ivs.shm->edges);
	u64 n = edges - ivs.seen;

	/*
	 * The session has ended (eqprof_stop clears running before it
	 * removes this handler): the edge is not this session's to take.
	 * The bridge holds it until it sees listening cleared, so that its
	 * count of the edges taken is the session's count.
	 */
	if (!READ_ONCE(d->running))
		return IRQ_HANDLED;
	if (edges < ivs.seen) {
		/* a new bridge: start counting again from its edges */
		ivs.backwards++;
		ivs.seen = edges;
		writeq(edges, &ivs.shm->taken);
		return IRQ_HANDLED;
	}
	if (!n) {
		ivs.spurious++;
		return IRQ_HANDLED;
	}
	ivs.seen = edges;
	if (n > 1) {
		ivs.merged += n - 1;
		eq_ring_lose(&this_cpu_ptr(d->cpu)->ring, (u32)min_t(u64, n - 1, U32_MAX));
	}
	eqprof_sample(d, get_irq_regs());
	/*
	 * The bridge may ring for the next edge.  Only while the session
	 * runs: if it ended meanwhile, this edge may or may not be in its
	 * samples, and the bridge's count ends at the edge before.
	 */
	if (READ_ONCE(d->running))
		writeq(edges, &ivs.shm->taken);
	return IRQ_HANDLED;
}

static int eqprof_ivshmem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct eqprof_dev *d = ivs.d;
	int ret, cpu;

	if (ivs.pdev)
		return -EBUSY;	/* one board */
	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	ret = pci_request_region(pdev, 0, "eqprof");
	if (ret)
		goto disable;
	if (pci_resource_len(pdev, 2) < sizeof(*ivs.shm)) {
		dev_err(&pdev->dev, "eqprof: BAR 2 holds %llu bytes, the board's shared memory needs %zu: is the bridge serving this device?\n",
			(unsigned long long)pci_resource_len(pdev, 2), sizeof(*ivs.shm));
		ret = -ENODEV;
		goto release;
	}
	ivs.shm = pci_iomap(pdev, 2, sizeof(*ivs.shm));
	if (!ivs.shm) {
		ret = -ENOMEM;
		goto release;
	}
	if (readl(&ivs.shm->magic) != EQPROF_IVSHMEM_MAGIC) {
		dev_err(&pdev->dev, "eqprof: the shared memory has no board (magic %#x): start the bridge before the guest (docs/hil.md)\n",
			readl(&ivs.shm->magic));
		ret = -ENODEV;
		goto unmap;
	}
	/* An MSI is a memory write by the device: it must be a bus master. */
	pci_set_master(pdev);
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(&pdev->dev, "eqprof: no MSI-X vector (%d): the doorbell interrupts only through MSI-X (ivshmem-doorbell,vectors=1)\n",
			ret);
		goto unmap;
	}
	ivs.irq = pci_irq_vector(pdev, 0);
	/*
	 * Listen, then count: once the bridge sees the flag it rings one
	 * edge at a time, each once the last was taken, so every edge after
	 * the count read here is this session's and comes to the handler on
	 * its own (but one: an edge the bridge was ringing as the flag was
	 * set may come after the count; it is sampled all the same).
	 */
	writel(1, &ivs.shm->listening);
	ivs.seen = readq(&ivs.shm->edges);	/* earlier edges are not this session's */
	writeq(ivs.seen, &ivs.shm->taken);
	d->first_seq = (u32)ivs.seen;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(d->cpu, cpu)->ring.next_seq = d->first_seq;
	ivs.merged = 0;
	ivs.spurious = 0;
	ivs.backwards = 0;
	handover_delay();
	ret = request_irq(ivs.irq, eqprof_ivshmem_irq, 0, "eqprof", d);
	if (ret) {
		dev_err(&pdev->dev, "eqprof: cannot request IRQ %d: %d\n", ivs.irq, ret);
		goto unlisten;
	}
	ivs.pdev = pdev;
	d->irq = ivs.irq;
	d->irq_threaded = false;
	snprintf(d->source_name, sizeof(d->source_name), "ivshmem %s msix hardirq",
		 pci_name(pdev));
	return 0;

unlisten:
	writel(0, &ivs.shm->listening);
	pci_free_irq_vectors(pdev);
unmap:
	pci_iounmap(pdev, ivs.shm);
	ivs.shm = NULL;
release:
	pci_release_region(pdev, 0);
disable:
	pci_disable_device(pdev);
	return ret;
}

static void eqprof_ivshmem_remove(struct pci_dev *pdev)
{
	if (pdev != ivs.pdev)
		return;
	writel(0, &ivs.shm->listening);
	free_irq(ivs.irq, ivs.d);	/* waits for a running handler */
	pci_free_irq_vectors(pdev);
	pci_iounmap(pdev, ivs.shm);
	ivs.shm = NULL;
	pci_release_region(pdev, 0);
	pci_clear_master(pdev);
	pci_disable_device(pdev);
	ivs.pdev = NULL;
}

static const struct pci_device_id eqprof_ivshmem_ids[] = {
	{ PCI_DEVICE(EQPROF_IVSHMEM_VENDOR, EQPROF_IVSHMEM_DEVICE) },
	{ }
};

static struct pci_driver eqprof_ivshmem_driver = {
	.name = "eqprof-ivshmem",
	.id_table = eqprof_ivshmem_ids,
	.probe = eqprof_ivshmem_probe,
	.remove = eqprof_ivshmem_remove,
};

static int eqprof_ivshmem_start(struct eqprof_dev *d, const struct eqprof_config *cfg)
{
	int ret;

	ivs.d = d;
	ivs.pdev = NULL;
	ret = pci_register_driver(&eqprof_ivshmem_driver);
	if (ret)
		return ret;
	if (!ivs.pdev) {
		pci_unregister_driver(&eqprof_ivshmem_driver);
		pr_err("eqprof: no ivshmem-doorbell device (PCI %04x:%04x) with a board behind it: run the guest with the bridge's device (docs/hil.md)\n",
		       EQPROF_IVSHMEM_VENDOR, EQPROF_IVSHMEM_DEVICE);
		return -ENODEV;
	}
	return 0;
}

static void eqprof_ivshmem_stop(struct eqprof_dev *d)
{
	handover_delay();	/* running is already false */
	pci_unregister_driver(&eqprof_ivshmem_driver);	/* removes: no handler runs after */
	if (ivs.merged || ivs.spurious || ivs.backwards)
		pr_info("eqprof: ivshmem: %llu edges arrived merged (counted lost), %llu doorbells without an edge, %llu restarts of the bridge\n",
			ivs.merged, ivs.spurious, ivs.backwards);
}

const struct eqprof_source eqprof_ivshmem_source = {
	.name = "ivshmem",
	.flags = EQ_F_ENERGY,
	.start = eqprof_ivshmem_start,
	.stop = eqprof_ivshmem_stop,
};
