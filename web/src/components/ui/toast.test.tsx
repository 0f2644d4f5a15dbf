import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { TOAST_REMOVE_DELAY, ToastProvider, toastPlacementFor, useToast, type ToastApi } from './toast';

let api: ToastApi;
function Capture() {
  api = useToast();
  return null;
}

function renderToasts() {
  return render(
    <ToastProvider>
      <Capture />
    </ToastProvider>,
  );
}

afterEach(() => jest.useRealTimers());

describe('toasts', () => {
  it('shows a destructive toast with its title and description', async () => {
    renderToasts();
    act(() => void api.toast({ variant: 'destructive', title: 'Error', description: 'Failed to save admin note.' }));
    expect(await screen.findByText('Failed to save admin note.')).toBeInTheDocument();
    expect(screen.getByText('Error').closest('[data-variant]')).toHaveAttribute('data-variant', 'destructive');
  });

  it('keeps at most one toast: a new one replaces the old', async () => {
    renderToasts();
    act(() => void api.toast({ title: 'Note saved' }));
    await screen.findByText('Note saved');
    act(() => void api.toast({ title: 'User deleted' }));
    expect(await screen.findByText('User deleted')).toBeInTheDocument();
    expect(screen.queryByText('Note saved')).not.toBeInTheDocument();
    expect(api.toasts).toHaveLength(1);
  });

  it('removes a dismissed toast from the list after 1,000,000 ms', async () => {
    renderToasts();
    let id = '';
    act(() => void (id = api.toast({ title: 'Entry created' }).id));
    await screen.findByText('Entry created');
    jest.useFakeTimers();
    act(() => api.dismiss(id));
    expect(api.toasts).toEqual([expect.objectContaining({ id, open: false })]);
    act(() => jest.advanceTimersByTime(TOAST_REMOVE_DELAY - 1));
    expect(api.toasts).toHaveLength(1);
    act(() => jest.advanceTimersByTime(1));
    expect(api.toasts).toHaveLength(0);
    expect(TOAST_REMOVE_DELAY).toBe(1_000_000);
  });

  it('closes with its close button', async () => {
    renderToasts();
    act(() => void api.toast({ title: 'Password updated' }));
    await screen.findByText('Password updated');
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(api.toasts[0]?.open).toBe(false);
  });

  it('needs the provider', () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => render(<Capture />)).toThrow('useToast must be used inside <ToastProvider>');
  });
});

describe('toastPlacementFor', () => {
  const desktop = { width: 1280, height: 900 };
  const phone = { width: 360, height: 780 };
  it.each([
    ['no control known', null, desktop, 'bottom'],
    ['a control near the top right', { right: 1200, bottom: 80 }, desktop, 'bottom'],
    ['a centred button low on a wide screen (clear of the right corner)', { right: 870, bottom: 880 }, desktop, 'bottom'],
    ['the last row’s Update button, bottom right', { right: 967, bottom: 840 }, desktop, 'top'],
    ['a bottom-right control just above the corner', { right: 1200, bottom: 700 }, desktop, 'bottom'],
    ['a button at the bottom of a phone screen', { right: 100, bottom: 760 }, phone, 'top'],
    ['a button in the middle of a phone screen', { right: 320, bottom: 400 }, phone, 'bottom'],
    ['an empty viewport', { right: 10, bottom: 20 }, { width: 0, height: 0 }, 'bottom'],
  ] as const)('%s → %s', (_case, control, viewport, placement) => {
    expect(toastPlacementFor(control, viewport)).toBe(placement);
  });
});

describe('toast placement', () => {
  function renderWithButton(top: number) {
    render(
      <ToastProvider>
        <Capture />
        <button type="button">Update</button>
      </ToastProvider>,
    );
    const button = screen.getByRole('button', { name: 'Update' });
    const right = window.innerWidth - 20;
    jest.spyOn(button, 'getBoundingClientRect').mockReturnValue({
      top,
      bottom: top + 36,
      left: right - 80,
      right,
      width: 80,
      height: 36,
      x: right - 80,
      y: top,
      toJSON: () => ({}),
    });
    return button;
  }

  afterEach(() => jest.restoreAllMocks());

  it('goes to the top when the control pressed last sits in the bottom-right corner', async () => {
    await userEvent.click(renderWithButton(window.innerHeight - 60));
    act(() => void api.toast({ title: 'Password updated' }));
    await screen.findByText('Password updated');
    expect(api.toasts[0]?.placement).toBe('top');
    expect(document.querySelector('[data-placement]')).toHaveAttribute('data-placement', 'top');
  });

  it('stays at the bottom when the control is higher up', async () => {
    await userEvent.click(renderWithButton(20));
    act(() => void api.toast({ title: 'Password updated' }));
    await screen.findByText('Password updated');
    expect(document.querySelector('[data-placement]')).toHaveAttribute('data-placement', 'bottom');
  });

  it('takes an explicit placement', async () => {
    await userEvent.click(renderWithButton(window.innerHeight - 60));
    act(() => void api.toast({ title: 'Saved', placement: 'bottom' }));
    await screen.findByText('Saved');
    expect(api.toasts[0]?.placement).toBe('bottom');
  });
});
