import { altEvidenceFacts, altEvidenceReasons, countsAsAlt, describeAltEvidence } from './alt-evidence-words';

const allEqual = { canvas: true, webgl: true, audio: true, fonts: true, screen: true, timezone: true, language: true, platform: true };

describe('describeAltEvidence', () => {
  it('names one browser profile as certain', () => {
    expect(describeAltEvidence({ confidence: 'certain', detectionMethod: 'browser', evidence: { browserTokenMatch: true } })).toBe(
      'same browser (certain)',
    );
  });

  it('says how many other members show a common device model, and that a weak link is not counted', () => {
    const evidence = {
      fingerprintMatch: true,
      fingerprintShared: 214,
      fingerprintNetworks: 180,
      sharedCountsCappedAt: 300,
      components: allEqual,
    };
    expect(describeAltEvidence({ confidence: 'possible', detectionMethod: 'fingerprint', evidence })).toBe(
      'same device model as 214 other members on 180 networks (weak, not counted)',
    );
  });

  it('says "at least" when the count stopped at its cap', () => {
    const evidence = { fingerprintMatch: true, fingerprintShared: 63, fingerprintNetworks: 40, sharedCountsCappedAt: 63 };
    expect(describeAltEvidence({ confidence: 'possible', detectionMethod: 'fingerprint', evidence })).toBe(
      'same device model as at least 63 other members on 40 networks (weak, not counted)',
    );
  });

  it('puts the browser first, then a device nobody else shows, then the address', () => {
    const evidence = {
      browserTokenMatch: true,
      fingerprintMatch: true,
      fingerprintShared: 0,
      fingerprintNetworks: 0,
      ipMatch: true,
      addressShared: 1,
      components: allEqual,
    };
    expect(describeAltEvidence({ confidence: 'certain', detectionMethod: 'browser', evidence })).toBe(
      'same browser; same device model, shown by no other member; same internet address as 1 other member (certain)',
    );
  });

  it('lists shared components with how common each is when the whole device profile differs', () => {
    const evidence = {
      ipMatch: true,
      addressShared: 3,
      components: { canvas: false, webgl: true, audio: false, fonts: true, screen: false },
      webglShared: 0,
      fontsShared: 12,
    };
    expect(describeAltEvidence({ confidence: 'medium', detectionMethod: 'both', evidence })).toBe(
      'same internet address as 3 other members; same graphics card, shown by no other member; same font list as 12 other members (medium)',
    );
  });

  it('names a second browser on the same machine by its settings', () => {
    const evidence = {
      components: { canvas: false, webgl: true, audio: false, fonts: false, screen: true, timezone: true, language: true, platform: true },
      webglShared: 1,
    };
    expect(altEvidenceReasons(altEvidenceFacts(evidence))).toEqual([
      'same graphics card as 1 other member',
      'same screen, time zone, language and platform',
    ]);
  });

  it('says a match on a network staff marked shared was not counted', () => {
    expect(
      describeAltEvidence({ confidence: 'possible', detectionMethod: 'network', evidence: { networkMatch: true, sharedNetwork: true } }),
    ).toBe('same network, marked shared by staff (weak, not counted)');
  });

  it('reads links stored before counts were kept, and manual links without evidence', () => {
    expect(
      describeAltEvidence({ confidence: 'medium', detectionMethod: 'fingerprint', evidence: { fingerprintMatch: true, score: 50 } }),
    ).toBe('same device model (medium)');
    expect(describeAltEvidence({ confidence: 'certain', detectionMethod: 'manual', evidence: {} })).toBe('linked by staff (certain)');
    expect(describeAltEvidence({ confidence: 'possible', detectionMethod: 'ip', evidence: null })).toBe(
      'no shared evidence recorded (weak, not counted)',
    );
  });

  it('names the strongest reasons and counts the rest when asked to be short', () => {
    const evidence = {
      browserTokenMatch: true,
      ipMatch: true,
      addressShared: 0,
      components: { canvas: true, webgl: true, audio: true },
      canvasShared: 0,
      webglShared: 0,
      audioShared: 0,
    };
    expect(describeAltEvidence({ confidence: 'certain', detectionMethod: 'browser', evidence }, { maxReasons: 2 })).toBe(
      'same browser; same internet address, shown by no other member; 3 more shared signs (certain)',
    );
  });

  it('names the networks only when they cannot outnumber the members counted', () => {
    const evidence = { fingerprintMatch: true, fingerprintShared: 1, fingerprintNetworks: 2 };
    expect(describeAltEvidence({ confidence: 'possible', detectionMethod: 'fingerprint', evidence })).toBe(
      'same device model as 1 other member (weak, not counted)',
    );
  });

  it('names the component that makes an equal fingerprint one device rather than one model', () => {
    const evidence = {
      fingerprintMatch: true,
      fingerprintShared: 1,
      fingerprintNetworks: 1,
      components: { canvas: true, fonts: true },
      canvasShared: 40,
      fontsShared: 0,
    };
    expect(describeAltEvidence({ confidence: 'medium', detectionMethod: 'fingerprint', evidence })).toBe(
      'same device model as 1 other member, with a font list no other member shows (medium)',
    );
    const popular = { ...evidence, fontsShared: 12 };
    expect(describeAltEvidence({ confidence: 'possible', detectionMethod: 'fingerprint', evidence: popular })).toBe(
      'same device model as 1 other member (weak, not counted)',
    );
  });

  it('ignores stored values of the wrong type', () => {
    expect(altEvidenceFacts({ fingerprintMatch: 'yes', fingerprintShared: '3', components: { canvas: 1, fonts: true } })).toEqual({
      components: { fonts: true },
    });
  });
});

describe('countsAsAlt', () => {
  it('counts certain and medium links, never possible ones', () => {
    expect(countsAsAlt('certain')).toBe(true);
    expect(countsAsAlt('medium')).toBe(true);
    expect(countsAsAlt('possible')).toBe(false);
  });
});
