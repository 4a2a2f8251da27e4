"""torch.special's Bessel, Airy and normal-distribution functions, built from elementwise ops.

torch computes each with a Cephes-style expansion (aten/src/ATen/native/Math.h): rational functions or
Chebyshev series over fixed ranges, chosen per element. Here each range's expansion is evaluated over
the whole tensor and the ranges picked with `where`, in the input's dtype, so the same code runs on
"cpu" (float32 and float64) and "webgpu" (float32) and rounds as torch's float32 kernels do. The
coefficients are Cephes' (Stephen L. Moshier's Cephes Math Library, BSD-3), as torch uses them; where torch's
loops evaluate a polynomial from 0 without Cephes' implied leading 1 (p1evl), so do these.
Every function takes a floating tensor and returns one of its dtype and shape (special.py wraps them:
dtype promotion, gradients, out=).
"""
import math

from . import _ops

_FRAC_2_SQRT_2PI = 0.797884560802865355879892119868763737   # sqrt(2 / pi)
_INV_SQRT_PI = 0.564189583547756286948                    # 1 / sqrt(pi)


def multiply_add(a, b, c):
    """a + b c, rounded once."""
    return _ops.elementwise("addcmul", a, b, c)


def polynomial(x, coefficients):
    """c[0] x^(n-1) + ... + c[n-1] by Horner's rule (highest power first)."""
    acc = multiply_add(coefficients[1], x, coefficients[0])
    for c in coefficients[2:]:
        acc = multiply_add(c, acc, x)
    return acc


def chebyshev_series(x, coefficients):
    """Cephes' chbevl: Σ c[i] T_i(x/2), the zero-order term last, by Clenshaw's recurrence."""
    b2, b1 = 0.0, coefficients[0]
    b0 = multiply_add(coefficients[1], x, b1)
    for c in coefficients[2:]:
        b2, b1 = b1, b0
        minus_b2 = _ops.neg(b2) if _ops._is_tensor(b2) else -b2
        b0 = _ops.add(multiply_add(minus_b2, x, b1), c)  # (x b1 - b2) + c, the first rounded once as torch's build
    return _ops.mul(_ops.sub(b0, b2), 0.5)


# -- modified Bessel functions of the first kind: e^-x I_n(x) by Chebyshev series on [0, 8] and (8, inf) -----
_I0E_NEAR = (  # e^-x I0(x) on [0, 8], in (x/2 - 2)
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7, 1.11738753912010371815E-6,
    -4.41673835845875056359E-6, 1.64484480707288970893E-5, -5.75419501008210370398E-5, 1.88502885095841655729E-4,
    -5.76375574538582365885E-4, 1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2, 1.71620901522208775349E-1,
    -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0E_FAR = (  # e^-x sqrt(x) I0(x) on (8, inf), in (32/x - 2)
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17, 3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15, 3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11, 4.94060238822496958910E-10, 3.39623202570838634515E-9, 2.26666899049817806459E-8,
    2.04891858946906374183E-7, 2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1)
_I1E_NEAR = (  # e^-x I1(x) / x on [0, 8]
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7, -8.56872026469545474066E-7,
    3.47025130813767847674E-6, -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
    5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1, -1.76416518357834055153E-1,
    2.52587186443633654823E-1)
_I1E_FAR = (  # e^-x sqrt(x) I1(x) on (8, inf)
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16, 3.30820231092092828324E-16, -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14, 4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11, 3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10, -3.83538038596423702205E-9, -2.63146884688951950684E-8,
    -2.51223623787020892529E-7, -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1)


def _scaled_bessel_i(x, near, far, order):
    """(e^-|x| I_n(|x|) without the far range's 1/sqrt|x|, that factor, |x| <= 8) for n = order."""
    a = _ops.abs(x)
    small = _ops.le(a, 8.0)
    near_value = chebyshev_series(_ops.sub(_ops.div(a, 2.0), 2.0), near)
    if order:
        near_value = _ops.mul(near_value, a)
    far_value = chebyshev_series(_ops.sub(_ops.div(32.0, a), 2.0), far)
    return a, small, near_value, far_value


def _odd(x, value):
    """value for x >= 0, -value for x < 0 (an odd function of x; -0 gives +value, as torch)."""
    return _ops.where(_ops.lt(x, 0), _ops.neg(value), value)


def i0e(x):
    a, small, near, far = _scaled_bessel_i(x, _I0E_NEAR, _I0E_FAR, 0)
    return _ops.where(small, near, _ops.div(far, _ops.sqrt(a)))


def i1e(x):
    a, small, near, far = _scaled_bessel_i(x, _I1E_NEAR, _I1E_FAR, 1)
    return _odd(x, _ops.where(small, near, _ops.div(far, _ops.sqrt(a))))


def modified_bessel_i0(x):
    a, small, near, far = _scaled_bessel_i(x, _I0E_NEAR, _I0E_FAR, 0)
    e = _ops.exp(a)
    return _ops.where(small, _ops.mul(e, near), _ops.div(_ops.mul(e, far), _ops.sqrt(a)))


def modified_bessel_i1(x):
    a, small, near, far = _scaled_bessel_i(x, _I1E_NEAR, _I1E_FAR, 1)
    e = _ops.exp(a)
    return _odd(x, _ops.where(small, _ops.mul(near, e), _ops.div(_ops.mul(e, far), _ops.sqrt(a))))


# -- modified Bessel functions of the second kind: Chebyshev series on (0, 2] and (2, inf) -------------------
_K0_NEAR = (  # K0(x) + log(x/2) I0(x) on (0, 2], in (x^2 - 2)
    1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11, 1.90451637722020886025e-09,
    2.53479107902614945675e-07, 2.28621210311945178607e-05, 1.26461541144692592338e-03, 3.59799365153615016266e-02,
    3.44289899924628486886e-01, -5.35327393233902768720e-01)
_K0_FAR = (  # e^x sqrt(x) K0(x) on (2, inf), in (8/x - 2)
    5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17, -1.67823109680541210385e-16,
    5.51205597852431940784e-16, -1.84859337734377901440e-15, 6.34007647740507060557e-15, -2.22751332699166985548e-14,
    8.03289077536357521100e-14, -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
    1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10, -1.69753450938905987466e-09,
    8.57403401741422608519e-09, -4.66048989768794782956e-08, 2.76681363944501510342e-07, -1.83175552271911948767e-06,
    1.39498137188764993662e-05, -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
    2.44030308206595545468e+00)
_K1_NEAR = (  # x K1(x) - x log(x/2) I1(x) on (0, 2]
    -7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13, -1.41148839263352776110e-10,
    -2.21338763073472585583e-08, -2.43340614156596823496e-06, -1.73028895751305206302e-04, -6.97572385963986435018e-03,
    -1.22611180822657148235e-01, -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_FAR = (  # e^x sqrt(x) K1(x) on (2, inf)
    -5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17, 1.83809354436663880070e-16,
    -6.05704724837331885336e-16, 2.03870316562433424052e-15, -7.01983709041831346144e-15, 2.47715442448130437068e-14,
    -8.97670518232499435011e-14, 3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
    -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10, 2.01504975519703286596e-09,
    -1.03457624656780970260e-08, 5.74108412545004946722e-08, -3.50196060308781257119e-07, 2.40648494783721712015e-06,
    -1.93619797416608296024e-05, 1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
    2.72062619048444266945e+00)


def _bessel_k(x, order, scaled):
    """K_n(x) (times e^x where scaled): inf at 0, NaN below."""
    log_half = _ops.log(_ops.mul(x, 0.5))
    if order == 0:
        near = _ops.sub(chebyshev_series(_ops.sub(_ops.mul(x, x), 2.0), _K0_NEAR),
                        _ops.mul(log_half, modified_bessel_i0(x)))
    else:
        near = _ops.add(_ops.mul(log_half, modified_bessel_i1(x)),
                        _ops.div(chebyshev_series(_ops.sub(_ops.mul(x, x), 2.0), _K1_NEAR), x))
    far = _ops.div(chebyshev_series(_ops.sub(_ops.div(8.0, x), 2.0), _K1_FAR if order else _K0_FAR), _ops.sqrt(x))
    if scaled:
        near = _ops.mul(near, _ops.exp(x))
    else:
        far = _ops.mul(_ops.exp(_ops.neg(x)), far)
    value = _ops.where(_ops.le(x, 2.0), near, far)
    return _ops.where(_ops.eq(x, 0), math.inf, _ops.where(_ops.lt(x, 0), math.nan, value))


def modified_bessel_k0(x):
    return _bessel_k(x, 0, False)


def modified_bessel_k1(x):
    return _bessel_k(x, 1, False)


def scaled_modified_bessel_k0(x):
    return _bessel_k(x, 0, True)


def scaled_modified_bessel_k1(x):
    return _bessel_k(x, 1, True)


# -- Bessel functions of the first and second kind: rational functions on [0, 5], Hankel's form beyond -------
_HANKEL = {  # P and Q of the asymptotic form, numerators and denominators in (5/x)^2, for order 0 and 1
    0: ((7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00, 5.44725003058768775090e+00,
         8.74716500199817011941e+00, 5.30324038235394892183e+00, 9.99999999999999997821e-01),
        (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00, 5.47097740330417105182e+00,
         8.76190883237069594232e+00, 5.30605288235394617618e+00, 1.00000000000000000218e+00),
        (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
         -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
         -5.14105326766599330220e+01, -6.05014350600728481186e+00),
        (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03, 7.24046774195652478189e+03,
         5.93072701187316984827e+03, 2.06209331660327847417e+03, 2.42005740240291393179e+02)),
    1: ((7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00, 5.11207951146807644818e+00,
         8.42404590141772420927e+00, 5.21451598682361504063e+00, 1.00000000000000000254e+00),
        (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00, 5.07386386128601488557e+00,
         8.39985554327604159757e+00, 5.20982848682361821619e+00, 9.99999999999999997461e-01),
        (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01, 3.66779609360150777800e+02,
         7.10856304998926107277e+02, 5.97489612400613639965e+02, 2.11688757100572135698e+02, 2.52070205858023719784e+01),
        (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03, 9.56231892404756170795e+03,
         7.99704160447350683650e+03, 2.82619278517639096600e+03, 3.36093607810698293419e+02)),
}
_J_NEAR = {  # J_n on [0, 5]: numerator and denominator in x^2, and the squares of J_n's first two zeros
    0: ((-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14, 9.70862251047306323952e+15),
        (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07, 1.11855537045356834862e+10,
         2.11277520115489217587e+12, 3.10518229857422583814e+14, 3.18121955943204943306e+16, 1.71086294081043136091e+18),
        (5.78318596294678452118e+00, 3.04712623436620863991e+01)),
    1: ((-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13, 3.68295732863852883286e+15),
        (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07, 2.21511595479792499675e+10,
         4.74914122079991414898e+12, 7.84369607876235854894e+14, 8.95222336184627338078e+16, 5.32278620332680085395e+18),
        (1.46819706421238932572e+01, 4.92184563216946036703e+01)),
}
_Y_NEAR = {  # Y_n - (2/pi) (J_n log x [- 1/x]) on (0, 5]: numerator and denominator in x^2
    0: ((1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09, -9.82136065717911466409e+11,
         8.75906394395366999549e+13, -3.46628303384729719441e+15, 4.42733268572569800351e+16, -1.84950800436986690637e+16),
        (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08, 8.64002487103935000337e+10,
         2.02979612750105546709e+13, 3.17157752842975028269e+15, 2.50596256172653059228e+17)),
    1: ((1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14, -8.12770255501325109621e+15,
         2.02439475713594898196e+17, -7.78877196265950026825e+17),
        (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07, 1.87601316108706159478e+10,
         3.88231277496238566008e+12, 6.20557727146953693363e+14, 6.87141087355300489866e+16, 3.97270608116560655612e+18)),
}


def _hankel(x, order, second_kind):
    """sqrt(2/(pi x)) (P cos(x - phase) - (5/x) Q sin(x - phase)) for J_n; sin and cos swapped, + for Y_n."""
    pp, pq, qp, qq = _HANKEL[order]
    w = _ops.div(25.0, _ops.mul(x, x)) if order == 0 else _ops.mul(_ops.div(5.0, x), _ops.div(5.0, x))
    p = _ops.div(polynomial(w, pp), polynomial(w, pq))
    q = _ops.mul(_ops.div(5.0, x), _ops.div(polynomial(w, qp), polynomial(w, qq)))
    phase = _ops.sub(x, 0.785398163397448309615660845819875721 if order == 0 else 2.356194490192344928846982537459627163)
    if second_kind:
        wave = _ops.add(_ops.mul(p, _ops.sin(phase)), _ops.mul(q, _ops.cos(phase)))
    else:
        wave = _ops.sub(_ops.mul(p, _ops.cos(phase)), _ops.mul(q, _ops.sin(phase)))
    return _ops.div(_ops.mul(wave, _FRAC_2_SQRT_2PI), _ops.sqrt(x))


def bessel_j0(x):
    x = _ops.abs(x)
    z = _ops.mul(x, x)
    rp, rq, (zero1, zero2) = _J_NEAR[0]
    near = _ops.div(_ops.mul(_ops.mul(_ops.sub(z, zero1), _ops.sub(z, zero2)), polynomial(z, rp)), polynomial(z, rq))
    near = _ops.where(_ops.lt(x, 0.00001), _ops.sub(1.0, _ops.div(z, 4.0)), near)
    return _ops.where(_ops.le(x, 5.0), near, _hankel(x, 0, False))


def bessel_j1(x):
    a = _ops.abs(x)
    z = _ops.mul(x, x)
    rp, rq, (zero1, zero2) = _J_NEAR[1]
    near = _ops.mul(_ops.mul(_ops.mul(_ops.div(polynomial(z, rp), polynomial(z, rq)), x), _ops.sub(z, zero1)),
                    _ops.sub(z, zero2))
    return _ops.where(_ops.le(a, 5.0), near, _odd(x, _hankel(a, 1, False)))


def bessel_y0(x):
    z = _ops.mul(x, x)
    yp, yq = _Y_NEAR[0]
    near = _ops.add(_ops.div(polynomial(z, yp), polynomial(z, yq)),
                    _ops.mul(_ops.mul(_ops.log(x), 0.636619772367581343075535053490057448), bessel_j0(x)))
    return _second_kind_edges(x, near, _hankel(x, 0, True))


def bessel_y1(x):
    z = _ops.mul(x, x)
    yp, yq = _Y_NEAR[1]
    near = _ops.add(_ops.mul(x, _ops.div(polynomial(z, yp), polynomial(z, yq))),
                    _ops.mul(_ops.sub(_ops.mul(bessel_j1(x), _ops.log(x)), _ops.reciprocal(x)),
                             0.636619772367581343075535053490057448))
    return _second_kind_edges(x, near, _hankel(x, 1, True))


def _second_kind_edges(x, near, far):
    """Y_n: -inf at 0, NaN below."""
    near = _ops.where(_ops.eq(x, 0), -math.inf, _ops.where(_ops.lt(x, 0), math.nan, near))
    return _ops.where(_ops.le(x, 5.0), near, far)


def spherical_bessel_j0(x):
    """sin(x)/x; its Taylor series in x^2 for |x| < 0.5; 0 at +-inf."""
    z = _ops.mul(x, x)
    series = polynomial(z, (1 / 6227020800.0, -1 / 39916800.0, 1 / 362880.0, -1 / 5040.0, 1 / 120.0, -1 / 6.0, 1.0))
    value = _ops.where(_ops.lt(_ops.abs(x), 0.5), series, _ops.div(_ops.sin(x), x))
    return _ops.where(_ops.isinf(x), 0.0, value)


# -- the Airy function Ai: asymptotic forms beyond -2.09 and 2.09, its Maclaurin series between ---------------
_AIRY_FAR_RIGHT = (  # numerator and denominator in 1/zeta, zeta = 2/3 x^(3/2)
    (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01, 1.68089224934630576269e+02,
     1.59756391350164413639e+02, 7.05360906840444183113e+01, 1.40264691163389668864e+01, 9.99999999999999995305e-01),
    (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01, 1.77318088145400459522e+02,
     1.64234692871529701831e+02, 7.14778400825575695274e+01, 1.40959135607834029598e+01, 1.00000000000000000470e+00))
_AIRY_FAR_LEFT = (  # f and g of the oscillating form: numerators and denominators in z^2, z = 1/zeta
    (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01, -2.79779981545119124951e-01,
     -4.91900132609500318020e-02, -4.06265923594885404393e-03, -1.59276496239262096340e-04, -2.77649108155232920844e-06,
     -1.67787698489114633780e-08),
    (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01, 9.18707402907259625840e+00,
     1.47529146771666414581e+00, 1.15687173795188044134e-01, 4.40291641615211203805e-03, 7.54720348287414296618e-05,
     4.51850092970580378464e-07),
    (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00, 9.39169229816650230044e-01,
     3.51465656105547619242e-01, 6.33888919628925490927e-02, 5.85804113048388458567e-03, 2.82851600836737019778e-04,
     6.98793669997260967291e-06, 8.11789239554389293311e-08, 3.41551784765923618484e-10),
    (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01, 5.47686069422975497931e+00,
     9.54293611618961883998e-01, 8.64580826352392193095e-02, 4.12656523824222607191e-03, 1.01259085116509135510e-04,
     1.17166733214413521882e-06, 4.91834570062930015649e-09))
_AIRY_TERMS = 12  # the Maclaurin series' terms for |x| < 2.09: x^36 / 36! ~ 1e-30 of its sum, past float64's


def airy_ai(x):
    # x < -2.09: Ai = (1/sqrt pi) |x|^(-1/4) (sin t (1 + z^2 f) - cos t z g), t = zeta + pi/4
    minus = _ops.neg(x)
    zeta = _ops.div(_ops.mul(_ops.mul(x, -2.0), _ops.sqrt(minus)), 3.0)
    z = _ops.reciprocal(zeta)
    z2 = _ops.mul(z, z)
    fn, fd, gn, gd = _AIRY_FAR_LEFT
    t = _ops.add(zeta, 0.25 * math.pi)
    left = _ops.sub(_ops.mul(_ops.sin(t), _ops.add(_ops.div(_ops.mul(z2, polynomial(z2, fn)), polynomial(z2, fd)), 1.0)),
                    _ops.mul(_ops.cos(t), _ops.div(_ops.mul(z, polynomial(z2, gn)), polynomial(z2, gd))))
    left = _ops.mul(_ops.div(_INV_SQRT_PI, _ops.sqrt(_ops.sqrt(minus))), left)
    # x >= 2.09: Ai = (1/sqrt pi) (N/D)(1/zeta) / (2 x^(1/4) e^zeta)
    zeta = _ops.div(_ops.mul(_ops.mul(x, 2.0), _ops.sqrt(x)), 3.0)
    inverse = _ops.reciprocal(zeta)
    an, ad = _AIRY_FAR_RIGHT
    right = _ops.div(_ops.mul(_ops.div(polynomial(inverse, an), polynomial(inverse, ad)), _INV_SQRT_PI),
                     _ops.mul(_ops.mul(_ops.sqrt(_ops.sqrt(x)), 2.0), _ops.exp(zeta)))
    # between: Ai = c1 f - c2 g, f = Σ 3^k (1/3)_k x^3k / (3k)!, g = Σ 3^k (2/3)_k x^(3k+1) / (3k+1)!
    cube = _ops.mul(_ops.mul(x, x), x)
    f, g, m, n, k = 1.0, x, 1.0, x, 1.0
    for _ in range(_AIRY_TERMS):
        m = _ops.div(_ops.mul(m, cube), k + 1)
        n = _ops.div(_ops.mul(n, cube), k + 2)
        m = _ops.div(m, k + 2)
        f = _ops.add(m, f)
        n = _ops.div(n, k + 3)
        g = _ops.add(g, n)
        k += 3
    middle = _ops.sub(_ops.mul(f, 0.355028053887817239260), _ops.mul(g, 0.258819403792806798405))
    value = _ops.where(_ops.lt(x, -2.09), left, _ops.where(_ops.ge(x, 2.09), right, middle))
    return _ops.where(_ops.isinf(x), math.nan, _ops.where(_ops.gt(x, 103.892), 0.0, value))


# -- the normal distribution: erfcx, log_ndtr, ndtri ---------------------------------------------------------
_ERFCX_FRACTION_FROM = 8.0   # erfcx by its continued fraction from here (erfc(8) ~ 1e-29: float32's edge near)
_ERFCX_FRACTION_TERMS = 40


def _exp_of_square(x):
    """e^(x^2) without x^2's rounding (which e^ magnifies x^2-fold): x = h + l with h of few bits, so that
    h^2 is exact, and e^(x^2) = e^(h^2) e^(2hl + l^2)."""
    scale = 256.0 if x.dtype.itemsize == 4 else 1048576.0  # h has at most 12 (25) bits for |x| < 16 (32)
    h = _ops.div(_ops.round(_ops.mul(x, scale)), scale)
    low = _ops.sub(x, h)
    return _ops.mul(_ops.exp(_ops.mul(h, h)), _ops.exp(_ops.mul(low, _ops.add(_ops.mul(h, 2.0), low))))


def erfcx(x):
    """e^(x^2) erfc(x): directly up to 8 (erfc keeps its relative accuracy; e^(x^2) split as above), then its
    continued fraction 1/sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))); inf below -26.7."""
    near = _ops.mul(_exp_of_square(_ops.where(_ops.lt(x, -26.7), 0.0, x)), _ops.elementwise("erfc", x))
    fraction = x
    for k in range(_ERFCX_FRACTION_TERMS, 0, -1):
        fraction = _ops.add(x, _ops.div(k / 2, fraction))
    far = _ops.div(_INV_SQRT_PI, fraction)
    value = _ops.where(_ops.lt(x, _ERFCX_FRACTION_FROM), near, far)
    return _ops.where(_ops.lt(x, -26.7), math.inf, value)


def log_ndtr(x):
    """log Phi(x): log(erfcx(-x/sqrt 2) / 2) - x^2/2 below -1 (erfc underflows), log1p(-erfc(x/sqrt 2) / 2) above."""
    t = _ops.mul(x, math.sqrt(0.5))
    left = _ops.sub(_ops.log(_ops.div(erfcx(_ops.neg(t)), 2.0)), _ops.mul(t, t))
    right = _ops.elementwise("log1p", _ops.div(_ops.neg(_ops.elementwise("erfc", t)), 2.0))
    return _ops.where(_ops.lt(x, -1.0), left, right)


_NDTRI_CENTRAL = (  # |y - 1/2| <= 3/8: numerator and denominator in (y - 1/2)^2
    (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1, 1.39312609387279679503E1,
     -1.23916583867381258016E0),
    (1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
     -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1, 1.59056225126211695515E1,
     -1.18331621121330003142E0))
_NDTRI_TAIL = (  # z = sqrt(-2 log y) in [2, 8): numerator and denominator in 1/z
    (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1, 4.40805073893200834700E1,
     1.46849561928858024014E1, 2.18663306850790267539E0, -1.40256079171354495875E-1, -3.50424626827848203418E-2,
     -8.57456785154685413611E-4),
    (1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
     1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1, -3.80806407691578277194E-2,
     -9.33259480895457427372E-4))
_NDTRI_FAR_TAIL = (  # z in [8, 64)
    (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0, 1.33303460815807542389E0,
     2.01485389549179081538E-1, 1.23716634817820021358E-2, 3.01581553508235416007E-4, 2.65806974686737550832E-6,
     6.23974539184983293730E-9),
    (1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
     2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4, 2.89247864745380683936E-6,
     6.79019408009981274425E-9))
_EXP_MINUS_2 = 0.13533528323661269189


def ndtri(y0):
    """Phi^-1(y): rational in (y - 1/2) in the centre; in the tails (y or 1 - y below e^-2), z - log(z)/z minus a
    rational function of 1/z, z = sqrt(-2 log y)."""
    upper = _ops.gt(y0, _ops.sub(1.0, _ops.full((), _EXP_MINUS_2, dtype=y0.dtype, device=y0.device)))
    y = _ops.where(upper, _ops.sub(1.0, y0), y0)
    c = _ops.sub(y, 0.5)
    c2 = _ops.mul(c, c)
    p, q = _NDTRI_CENTRAL
    central = _ops.mul(_ops.add(c, _ops.mul(c, _ops.div(_ops.mul(c2, polynomial(c2, p)), polynomial(c2, q)))),
                       2.50662827463100050242E0)
    z = _ops.sqrt(_ops.mul(_ops.log(y), -2.0))
    start = _ops.sub(z, _ops.div(_ops.log(z), z))
    inverse = _ops.reciprocal(z)
    (p1, q1), (p2, q2) = _NDTRI_TAIL, _NDTRI_FAR_TAIL
    correction = _ops.where(_ops.lt(z, 8.0),
                            _ops.div(_ops.mul(inverse, polynomial(inverse, p1)), polynomial(inverse, q1)),
                            _ops.div(_ops.mul(inverse, polynomial(inverse, p2)), polynomial(inverse, q2)))
    tail = _ops.sub(start, correction)
    tail = _ops.where(upper, tail, _ops.neg(tail))
    value = _ops.where(_ops.gt(y, _EXP_MINUS_2), central, tail)
    value = _ops.where(_ops.logical_or(_ops.lt(y0, 0), _ops.gt(y0, 1)), math.nan, value)
    return _ops.where(_ops.eq(y0, 0), -math.inf, _ops.where(_ops.eq(y0, 1), math.inf, value))


def entr(x):
    """-x log x for x > 0, 0 at 0, -inf below (NaN stays)."""
    value = _ops.where(_ops.eq(x, 0), 0.0, _ops.mul(_ops.neg(x), _ops.log(x)))
    return _ops.where(_ops.lt(x, 0), -math.inf, value)
