// The sandbox payment page's card fields, as Stripe's behave: the number is
// grouped as it is typed (4 4 4 4, or 4 6 5 for American Express), the
// expiry is typed as digits and gets its slash, and the form is checked
// before it is sent, each field's refusal under it. The server checks the
// same again.
"use strict";

(function () {
  var form = document.getElementById("card-form");
  if (!form) return;
  var number = document.getElementById("number");
  var expiry = document.getElementById("expiry");
  var cvc = document.getElementById("cvc");

  function digits(s) {
    return s.replace(/\D/g, "");
  }

  function groupNumber(d) {
    var amex = /^3[47]/.test(d);
    var sizes = amex ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var out = [];
    var at = 0;
    for (var i = 0; i < sizes.length && at < d.length; i++) {
      out.push(d.slice(at, at + sizes[i]));
      at += sizes[i];
    }
    return out.join(" ");
  }

  function formatExpiry(d, deleting) {
    if (d.length === 1 && d > "1") d = "0" + d;
    if (d.length < 2) return d;
    if (d.length === 2 && deleting) return d;
    return d.slice(0, 2) + " / " + d.slice(2, 4);
  }

  // Keeps the caret after the same number of digits once the value is
  // re-grouped.
  function reformat(input, format, deleting) {
    var caret = input.selectionStart === null ? input.value.length : input.selectionStart;
    var before = digits(input.value.slice(0, caret)).length;
    var next = format(digits(input.value), deleting);
    input.value = next;
    var pos = 0;
    var seen = 0;
    while (pos < next.length && seen < before) {
      if (/\d/.test(next[pos])) seen++;
      pos++;
    }
    input.setSelectionRange(pos, pos);
  }

  var deleting = false;
  form.addEventListener("keydown", function (e) {
    deleting = e.key === "Backspace" || e.key === "Delete";
  });
  number.addEventListener("input", function () {
    reformat(number, function (d) {
      return groupNumber(d.slice(0, 19));
    });
    clear(number);
  });
  expiry.addEventListener("input", function () {
    reformat(expiry, function (d, del) {
      return formatExpiry(d.slice(0, 4), del);
    }, deleting);
    clear(expiry);
  });
  cvc.addEventListener("input", function () {
    cvc.value = digits(cvc.value).slice(0, 4);
    clear(cvc);
  });

  function luhn(d) {
    var sum = 0;
    for (var i = 0; i < d.length; i++) {
      var n = Number(d[d.length - 1 - i]);
      if (i % 2 === 1) {
        n *= 2;
        if (n > 9) n -= 9;
      }
      sum += n;
    }
    return sum % 10 === 0;
  }

  function show(input, message) {
    var error = document.getElementById(input.id + "-error");
    error.textContent = message;
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }

  function clear(input) {
    if (input.getAttribute("aria-invalid") === "true") show(input, "");
  }

  function check() {
    var m = form.dataset;
    var n = digits(number.value);
    var min = /^3[47]/.test(n) ? 15 : 16;
    var problems = [];
    if (n.length < 12 || (n.length < min && !luhn(n))) {
      problems.push([number, m.numberIncomplete]);
    } else if (!luhn(n)) {
      problems.push([number, m.numberInvalid]);
    } else {
      show(number, "");
    }
    var e = digits(expiry.value);
    var month = Number(e.slice(0, 2));
    if (e.length !== 4 || month < 1 || month > 12) {
      problems.push([expiry, m.expiryIncomplete]);
    } else {
      var now = new Date();
      var year = 2000 + Number(e.slice(2, 4));
      // A card is good through the last day of its month.
      if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) {
        problems.push([expiry, m.expiryPast]);
      } else {
        show(expiry, "");
      }
    }
    var c = digits(cvc.value);
    if (c.length < 3) problems.push([cvc, m.cvcIncomplete]);
    else show(cvc, "");
    problems.forEach(function (p) {
      show(p[0], p[1]);
    });
    return problems;
  }

  form.addEventListener("submit", function (e) {
    var problems = check();
    if (problems.length > 0) {
      e.preventDefault();
      problems[0][0].focus();
      return;
    }
    var button = form.querySelector("button[type=submit]");
    button.setAttribute("aria-busy", "true");
    if (button.dataset.busy) button.textContent = button.dataset.busy;
  });
})();
