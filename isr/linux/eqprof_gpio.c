// SPDX-License-Identifier: GPL-2.0
/*
 * Energy-driven source: the board's edge on a GPIO line.
 *
 * The energy counter board pulses its IRQ output once per energy quantum.
 * Wired to a GPIO input of the target, the line is found by the label of
 * its GPIO chip and its offset on that chip (the gpio_chip and gpio_line
 * parameters, or the session's configuration), requested as an input, and
 * its interrupt taken in hard interrupt context where the GPIO controller
 * allows it.  Controllers behind a slow bus (I2C, SPI expanders) can only
 * deliver nested threaded interrupts: then the samples carry no interrupted
 * registers (EQ_F_PC_APPROX) and the statistics say "threaded".
 */
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/gpio/machine.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/string.h>
#include <asm/irq_regs.h>

#include "eqprof_dev.h"

static irqreturn_t eqprof_gpio_irq(int irq, void *arg)
{
	struct eqprof_dev *d = arg;

	/* In a nested thread there are no interrupted registers to read. */
	eqprof_sample(d, in_hardirq() ? get_irq_regs() : NULL);
	return IRQ_HANDLED;
}

#ifndef EQPROF_HAVE_GPIO_DEVICE_FIND
static int eqprof_match_label(struct gpio_chip *gc, void *label)
{
	return gc->label && !strcmp(gc->label, label);
}
#endif

static struct gpio_desc *eqprof_gpio_request(const char *label, unsigned int line)
{
	struct gpio_desc *desc;
	struct gpio_chip *gc;
#ifdef EQPROF_HAVE_GPIO_DEVICE_FIND
	struct gpio_device *gdev = gpio_device_find_by_label(label);

	if (!gdev)
		return ERR_PTR(-ENODEV);
	gc = gpio_device_get_chip(gdev);
#else
	gc = gpiochip_find((void *)label, eqprof_match_label);
	if (!gc)
		return ERR_PTR(-ENODEV);
#endif
	if (line >= gc->ngpio)
		desc = ERR_PTR(-ERANGE);
	else
		desc = gpiochip_request_own_desc(gc, line, "eqprof", GPIO_LOOKUP_FLAGS_DEFAULT,
						 GPIOD_IN);
#ifdef EQPROF_HAVE_GPIO_DEVICE_FIND
	gpio_device_put(gdev);
#endif
	return desc;
}

static int eqprof_gpio_start(struct eqprof_dev *d, const struct eqprof_config *cfg)
{
	unsigned long trigger = cfg->gpio_edge == 2 ? IRQF_TRIGGER_FALLING : IRQF_TRIGGER_RISING;
	int ret;

	d->gpio = eqprof_gpio_request(cfg->gpio_chip, cfg->gpio_line);
	if (IS_ERR(d->gpio)) {
		ret = PTR_ERR(d->gpio);
		pr_err("eqprof: GPIO chip '%s' line %u: %s (check the gpio_chip and gpio_line parameters against /sys/kernel/debug/gpio)\n",
		       cfg->gpio_chip, cfg->gpio_line,
		       ret == -ENODEV ? "no such chip" : ret == -ERANGE ? "no such line" :
		       ret == -EBUSY ? "line in use" : "cannot request");
		d->gpio = NULL;
		return ret;
	}
	d->irq = gpiod_to_irq(d->gpio);
	if (d->irq <= 0) {
		pr_err("eqprof: GPIO chip '%s' line %u has no interrupt (%d)\n",
		       cfg->gpio_chip, cfg->gpio_line, d->irq);
		ret = d->irq ? d->irq : -ENXIO;
		goto free_gpio;
	}
	ret = request_any_context_irq(d->irq, eqprof_gpio_irq, trigger, "eqprof", d);
	if (ret < 0) {
		pr_err("eqprof: cannot request IRQ %d of GPIO '%s' line %u: %d\n",
		       d->irq, cfg->gpio_chip, cfg->gpio_line, ret);
		goto free_gpio;
	}
	d->irq_threaded = ret == IRQC_IS_NESTED;
	snprintf(d->source_name, sizeof(d->source_name), "gpio %s:%u %s %s",
		 cfg->gpio_chip, cfg->gpio_line, cfg->gpio_edge == 2 ? "falling" : "rising",
		 d->irq_threaded ? "threaded" : "hardirq");
	if (d->irq_threaded)
		pr_warn("eqprof: IRQ %d of GPIO '%s' line %u can only be threaded: samples carry no interrupted pc (EQ_F_PC_APPROX)\n",
			d->irq, cfg->gpio_chip, cfg->gpio_line);
	return 0;

free_gpio:
	gpiochip_free_own_desc(d->gpio);
	d->gpio = NULL;
	d->irq = 0;
	return ret;
}

static void eqprof_gpio_stop(struct eqprof_dev *d)
{
	if (!d->gpio)
		return;
	free_irq(d->irq, d);	/* waits for a running handler */
	gpiochip_free_own_desc(d->gpio);
	d->gpio = NULL;
}

const struct eqprof_source eqprof_gpio_source = {
	.name = "gpio",
	.flags = EQ_F_ENERGY,
	.start = eqprof_gpio_start,
	.stop = eqprof_gpio_stop,
};
